/** `GET /backend/dashboard`: the staff home summary, scoped to the token's merchant (all merchants for level 1). */
export interface DashboardSummary {
  /** null for level 1 (every merchant). */
  merchant_id: number | null;
  venues: number;
  devices: number;
  devices_online: number;
  /** Local day (TZ) of the server. */
  today: {
    date: string;
    /** Paid orders (recharges and consumption, any method) created today. */
    orders: number;
    /** Their amount minus what was refunded, in fen. */
    amount_fen: number;
  };
}
