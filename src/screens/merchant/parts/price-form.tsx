import { useForm } from '../../../app/use-form';
import { fenToYuanText } from '../../../domain/money.schema';
import { PriceFormSchema, type VenuePrice } from '../../../domain/venues.schema';
import { venuesApi } from '../../../http/venues-api';
import { ActiveField, StaffForm, TextField } from '../../shared/form-parts';

/** Add or edit one service price of a venue: name, minutes, price typed in yuan (sent as fen), active. */
export function PriceForm({
  venueId,
  price,
  onDone,
}: {
  venueId: number;
  price: VenuePrice | null;
  onDone: (saved: boolean) => void;
}) {
  const form = useForm({
    schema: PriceFormSchema,
    values: {
      name: price?.name ?? '',
      minutes: price ? String(price.minutes) : '',
      price_fen: price ? fenToYuanText(price.price_fen) : '',
      active: price?.active ?? true,
    },
    submit: (v) => {
      const body = PriceFormSchema.parse(v); // already valid: the machine checked it with the same schema
      return price ? venuesApi.updatePrice(venueId, price.id, body) : venuesApi.createPrice(venueId, body);
    },
  });
  return (
    <StaffForm form={form} onDone={onDone}>
      <TextField
        form={form}
        name="name"
        label="价格名称"
        hint="用户在支付页看到的名称，如“1 小时”"
        placeholder="例如：60 分钟"
        maxLength={32}
      />
      <div className="flex gap-3">
        <TextField form={form} name="minutes" label="时长（分钟）" placeholder="60" inputMode="numeric" />
        <TextField form={form} name="price_fen" label="价格（元）" placeholder="3.50" inputMode="decimal" />
      </div>
      <ActiveField form={form} label="启用（用户扫码后可以选择）" />
    </StaffForm>
  );
}
