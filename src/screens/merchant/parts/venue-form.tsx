import { useForm } from '../../../app/use-form';
import { VenueFormSchema, type Venue } from '../../../domain/venues.schema';
import { venuesApi } from '../../../http/venues-api';
import { StaffForm, TextField } from '../../shared/form-parts';

/**
 * Add or edit a venue's name and address; `onDone(true)` after a save, `onDone(false)` when the user leaves. A new
 * venue belongs to the signed-in merchant, or for the admin to `merchantId`.
 */
export function VenueForm({
  venue,
  merchantId,
  onDone,
}: {
  venue: Venue | null;
  merchantId?: number | undefined;
  onDone: (saved: boolean) => void;
}) {
  const form = useForm({
    schema: VenueFormSchema,
    values: { name: venue?.name ?? '', address: venue?.address ?? '' },
    submit: (v) => {
      const body = VenueFormSchema.parse(v); // already valid: the machine checked it with the same schema
      return venue
        ? venuesApi.update(venue.id, body)
        : venuesApi.create({ ...body, merchant_id: merchantId });
    },
  });
  return (
    <StaffForm form={form} onDone={onDone}>
      <TextField form={form} name="name" label="场地名称" placeholder="例如：星河广场店" maxLength={64} />
      <TextField
        form={form}
        name="address"
        label="地址"
        hint="选填，最多 200 字"
        placeholder="省市区、街道门牌"
        rows={2}
      />
    </StaffForm>
  );
}
