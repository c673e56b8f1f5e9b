import { formatMemberCode } from '../../domain/member-code';

/** The member code as staff read it across a counter: a QR code (when drawn) and the 8 digits, large. */
export function MemberCodeCard({ code, qrSrc }: { code: string; qrSrc: string | null }) {
  return (
    <section
      className="flex flex-col items-center gap-2 rounded-box bg-base-100 p-4"
      data-testid="member-code"
    >
      <h2 className="text-sm font-medium text-base-content/70">会员码 · 到店充值时出示给店员</h2>
      {qrSrc ? (
        <img src={qrSrc} alt={`会员码 ${code}`} className="size-40" />
      ) : (
        <div className="size-40 rounded-box bg-base-200" aria-hidden="true" />
      )}
      <p className="font-mono text-4xl font-bold tracking-widest" data-testid="member-code-digits">
        {formatMemberCode(code)}
      </p>
    </section>
  );
}
