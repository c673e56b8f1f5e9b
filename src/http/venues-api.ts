/** Typed endpoints of `/backend/merchant/venues` (venues and their service prices) over the one HTTP client. */
import type { Page } from '../domain/api';
import type {
  PriceInput,
  PriceUpdate,
  Venue,
  VenueInput,
  VenueListQuery,
  VenuePrice,
  VenueUpdate,
} from '../domain/venues.schema';
import { http } from './client';
import { queryString } from './query-string';

export const venuesApi = {
  list: (q: VenueListQuery = {}) => http.get<Page<Venue>>(`/merchant/venues${queryString(q)}`),
  get: (id: number) => http.get<Venue>(`/merchant/venues/${id}`),
  create: (body: VenueInput) => http.post<Venue>('/merchant/venues', body),
  update: (id: number, body: VenueUpdate) => http.put<Venue>(`/merchant/venues/${id}`, body),

  prices: (venueId: number) => http.get<Page<VenuePrice>>(`/merchant/venues/${venueId}/prices`),
  createPrice: (venueId: number, body: PriceInput) =>
    http.post<VenuePrice>(`/merchant/venues/${venueId}/prices`, body),
  updatePrice: (venueId: number, priceId: number, body: PriceUpdate) =>
    http.put<VenuePrice>(`/merchant/venues/${venueId}/prices/${priceId}`, body),
  removePrice: (venueId: number, priceId: number) =>
    http.delete<void>(`/merchant/venues/${venueId}/prices/${priceId}`),
  /** Every price id of the venue, in the new order. */
  orderPrices: (venueId: number, ids: number[]) =>
    http.put<Page<VenuePrice>>(`/merchant/venues/${venueId}/prices/order`, { ids }),
};
