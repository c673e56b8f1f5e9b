/**
 * Steps of the money suites on the server test app with WeChat and devices (`createTestApp(WORLD)` from
 * ./test-app): the demo devices, the sandbox cashier's 确认支付, a recharge end to end.
 */
import { devices as devicesTable } from '../../../server/db/schema';
import { postJson, withCookie, type TestWorld } from '../test-app';

/** The ids of the demo data (devices 1..6: three at venue 1, three at venue 2). */
export async function demoDevices(world: TestWorld) {
  return world.database.db.select().from(devicesTable).orderBy(devicesTable.id);
}

/** What the browser does at the sandbox cashier: open the page, press 确认支付 (posts the page's form). */
export async function pressConfirmAtCashier(
  world: Pick<TestWorld, 'request'>,
  cashierUrl: string,
): Promise<Response> {
  const page = await world.request(cashierUrl);
  const html = await page.text();
  if (page.status !== 200 || !html.includes('确认支付'))
    throw new Error(`cashier page: ${page.status} ${html}`);
  const form = /<form method="post" action="cashier\/confirm">([\s\S]*?)<\/form>/.exec(html)?.[1] ?? '';
  const fields = new URLSearchParams();
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.set(
      m[1]!,
      m[2]!
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&#39;/g, "'"),
    );
  }
  const action = new URL('cashier/confirm', new URL(cashierUrl, 'http://localhost')).pathname;
  return world.request(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
  });
}

/** A recharge end to end over HTTP: POST /user/recharge, the cashier's 确认支付, the notification delivered. */
export async function rechargeViaCashier(
  world: TestWorld,
  cookie: string,
  merchant_id: number,
  package_id: number,
): Promise<string> {
  const res = await world.json<{ order: { order_no: string }; jsapi: { cashier_url?: string } }>(
    '/backend/user/recharge',
    withCookie(cookie, postJson({ merchant_id, package_id })),
  );
  if (res.status !== 201 || !res.body.jsapi.cashier_url)
    throw new Error(`recharge: ${res.status} ${JSON.stringify(res.body)}`);
  const confirmed = await pressConfirmAtCashier(world, res.body.jsapi.cashier_url);
  if (confirmed.status !== 303) throw new Error(`confirm: ${confirmed.status} ${await confirmed.text()}`);
  await world.settle();
  return res.body.order.order_no;
}
