import { z } from 'zod';
import { useForm } from '../../../app/use-form';
import {
  SUB_USER_ROLES,
  SubUserInputSchema,
  SubUserUpdateSchema,
  type SubUser,
} from '../../../domain/sub-users.schema';
import { subUsersApi } from '../../../http/people-api';
import { FormField } from '../../../ui/form-field';
import { AdminMerchantFilter } from '../../shared/admin-merchant-filter';
import { SelectField, StaffForm, TextField } from '../../shared/form-parts';

/** Editing: an empty password keeps the current one. */
const EditSchema = SubUserUpdateSchema.extend({
  password: z.union([z.literal(''), SubUserUpdateSchema.shape.password.unwrap()]),
});

/**
 * Add a partner or employee with an initial password, or edit name, phone and reset the password. The admin
 * (`pickMerchant`) chooses the merchant a new account belongs to, `merchantId` (the list's filter) chosen first.
 */
export function SubUserForm({
  user,
  pickMerchant = false,
  merchantId,
  onDone,
}: {
  user: SubUser | null;
  pickMerchant?: boolean;
  merchantId?: number;
  onDone: (saved: boolean) => void;
}) {
  const form = useForm({
    schema: user ? EditSchema : SubUserInputSchema,
    values: user
      ? { name: user.name, phone: user.phone, password: '' }
      : { username: '', name: '', phone: '', role: 'employee', password: '', merchant_id: merchantId },
    submit: (v) => {
      if (!user) return subUsersApi.create(SubUserInputSchema.parse(v));
      const { password, ...rest } = EditSchema.parse(v);
      return subUsersApi.update(user.id, password ? { ...rest, password } : rest);
    },
  });
  return (
    <StaffForm form={form} onDone={onDone}>
      {!user && pickMerchant && (
        <FormField label="所属商户" error={form.view.errors.merchant_id}>
          {(id) => (
            <AdminMerchantFilter
              id={id}
              emptyLabel="请选择商户"
              value={form.view.values.merchant_id as number | undefined}
              onChange={(v) => form.change('merchant_id', v)}
            />
          )}
        </FormField>
      )}
      {user && pickMerchant && <p className="text-sm text-base-content/60">所属商户：{user.merchant_name}</p>}
      {!user && (
        <TextField form={form} name="username" label="登录用户名" placeholder="字母、数字，至少 3 位" />
      )}
      {user && <p className="text-sm text-base-content/60">用户名：{user.username}</p>}
      <TextField form={form} name="name" label="姓名" placeholder="请输入姓名" maxLength={32} />
      <TextField
        form={form}
        name="phone"
        label="手机号"
        placeholder="选填"
        inputMode="numeric"
        maxLength={11}
      />
      {!user && <SelectField form={form} name="role" label="角色" options={SUB_USER_ROLES} />}
      <TextField
        form={form}
        name="password"
        label={user ? '重置密码' : '初始密码'}
        hint={user ? '留空则不修改；重置后该账号需重新登录' : '至少 8 位，告知本人后请其登录'}
        placeholder={user ? '留空不修改' : '至少 8 位'}
        maxLength={64}
      />
    </StaffForm>
  );
}
