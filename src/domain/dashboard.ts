/** `GET /backend/dashboard`: the staff home summary, scoped to the token's merchant (all merchants for level 1). */
export interface DashboardSummary {
  /** null for level 1 (every merchant). */
  merchant_id: number | null;
  venues: number;
  devices: number;
  devices_online: number;
  /** Members' feedback still waiting for a reply (present for levels with the feedback inbox). */
  feedback_open?: number;
  /** Local day (TZ) of the server. */
  today: {
    date: string;
    /** Consumption orders (device uses, any method) paid today. */
    orders: number;
    /** Revenue: their amount minus what was refunded, in fen. */
    revenue_fen: number;
    /** The same as `revenue_fen` (the field's first name, kept for outside clients). */
    amount_fen: number;
    /** Recharges paid today. */
    recharges: number;
    /** Money in: what those recharges paid (bonus excluded) minus refunds, in fen. Never added to revenue. */
    recharge_fen: number;
  };
}
