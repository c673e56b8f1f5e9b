/**
 * The pay page's frame before its data arrives, as plain HTML: the device card, two price slots, the sign-in row
 * and both pay buttons in their places. index.html paints it from an inline script before any JavaScript bundle
 * has loaded (docs/performance.md), and the pay screen shows the same markup while it waits, so nothing moves or
 * flashes between the two. Classes are the real components' (DeviceCard, PriceCards, PageHeader) so sizes match.
 */

const line = (cls: string) => `<div class="skeleton ${cls}"></div>`;
/** Where a line of the device card will be: its real tag and text classes (so its height), a skeleton inside. */
const slot = (tag: string, textCls: string, skeletonCls: string) =>
  `<${tag} class="${textCls}">${line(skeletonCls)}</${tag}>`;

/**
 * What paying does, under the buttons: true of every device (a start that fails is refunded in full, an early stop
 * refunds the unused minutes pro rata). Static text, so it is painted with the frame, before any data: it is the
 * page's largest text and so its Largest Contentful Paint (docs/performance.md).
 */
export const PAY_NOTICE = '付款后设备随即启动。设备未能启动时全额退款；提前结束时，未使用的时长按比例退款。';
export const PAY_NOTICE_CLASS = 'px-1 text-sm leading-6 text-base-content/60';

/** The page body below the header. */
export const PAY_SHELL_BODY =
  '<main class="space-y-4 px-4 pt-4 pb-10" aria-busy="true">' +
  '<p class="sr-only" role="status">正在获取设备信息…</p>' +
  '<section class="rounded-box bg-base-100 p-4">' +
  '<div class="flex items-start justify-between gap-3"><div class="min-w-0">' +
  slot('h2', 'truncate text-lg font-semibold', 'my-0.5 h-6 w-40') +
  slot('p', 'text-sm text-base-content/60', 'my-0.5 h-4 w-52') +
  `</div>${line('h-5 w-10 rounded-full')}</div>` +
  '<div class="mt-3 border-t border-base-200 pt-3 text-sm">' +
  slot('p', 'font-medium', 'my-0.5 h-4 w-28') +
  slot('p', 'text-base-content/60', 'my-0.5 h-4 w-60') +
  slot('p', 'mt-1 text-xs text-base-content/50', 'my-0.5 h-3 w-32') +
  '</div>' +
  '</section>' +
  '<section><h2 class="mb-2 text-sm font-medium text-base-content/70">选择套餐</h2>' +
  '<div class="grid grid-cols-2 gap-3">' +
  `<div class="space-y-2 rounded-box border-2 border-transparent bg-base-100 p-3">${line('h-5 w-16')}${line('mt-1 h-7 w-20')}</div>`.repeat(
    2,
  ) +
  '</div></section>' +
  `<section class="flex items-center justify-between rounded-box bg-base-100 p-4">${line('h-5 w-48')}${line('h-8 w-20')}</section>` +
  '<section class="space-y-2">' +
  '<button type="button" class="btn btn-primary btn-block" disabled>余额支付</button>' +
  '<button type="button" class="btn btn-success btn-block" disabled>微信支付</button>' +
  '</section>' +
  `<p class="${PAY_NOTICE_CLASS}" data-testid="pay-notice">${PAY_NOTICE}</p>` +
  '</main>';

/** The whole page as index.html paints it: the end-user frame, the header, the body. */
export const PAY_SHELL_HTML =
  '<div class="mx-auto min-h-dvh max-w-md bg-base-200" data-screen="user-pay-shell">' +
  '<header class="navbar sticky top-0 z-10 min-h-12 bg-base-100 px-2 pt-[env(safe-area-inset-top)] shadow-sm">' +
  '<div class="w-12 flex-none"></div>' +
  '<h1 class="flex-1 truncate text-center text-base font-semibold">扫码支付</h1>' +
  '<div class="flex w-12 flex-none justify-end"><span class="btn btn-ghost btn-sm">我的</span></div>' +
  '</header>' +
  PAY_SHELL_BODY +
  '</div>';
