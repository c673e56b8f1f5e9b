/**
 * Reports: who may see what (token only, forged headers ignored, another merchant's ids 404), bad input (400 with
 * details, never a 500), and the CSV bytes (BOM, header, escaping of commas and quotes, yuan with two decimals,
 * the file name).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_ROWS_HEADER, type ConsumptionReport } from '../../../src/domain/reports.schema';
import { bearer } from '../test-app';
import { createWorld, type World } from './report-world';

let w: World;
const tokens = new Map<string, string>();
beforeAll(async () => {
  w = await createWorld();
  for (const u of ['admin', 'merchant', 'employee', 'partner', 'merchant2'])
    tokens.set(u, await w.t.login(u));
}, 60_000);
afterAll(async () => w?.t.close());

const RANGE = 'from=2026-11-01&to=2026-11-03';
const status = async (path: string, user?: string, headers: Record<string, string> = {}) =>
  (await w.t.request(`/backend${path}`, user ? bearer(tokens.get(user)!, headers) : { headers })).status;

describe('who sees what', () => {
  it('401 without a token; 403 for levels without the feature', async () => {
    expect(await status(`/reports/consumption?${RANGE}`)).toBe(401);
    expect(await status('/daily/cash')).toBe(401);
    expect(await status(`/reports/consumption?${RANGE}`, 'partner')).toBe(403);
    expect(await status('/daily/recharge', 'partner')).toBe(403);
    expect(await status(`/reports/cash?${RANGE}`, 'employee')).toBe(403);
    expect(await status('/daily/cash', 'employee')).toBe(200);
  });

  it("another merchant's merchant or venue id answers 404; unknown ids too", async () => {
    expect(await status(`/reports/consumption?${RANGE}&merchant_id=${w.m2.merchant}`, 'merchant')).toBe(404);
    expect(await status(`/reports/consumption?${RANGE}&venue_id=${w.m2.venue}`, 'merchant')).toBe(404);
    expect(await status(`/reports/consumption?${RANGE}&venue_id=1`, 'merchant2')).toBe(404);
    expect(await status(`/reports/consumption?${RANGE}&merchant_id=999`, 'admin')).toBe(404);
    expect(await status(`/reports/consumption?${RANGE}&merchant_id=1&venue_id=${w.m2.venue}`, 'admin')).toBe(
      404,
    );
    expect(await status(`/reports/consumption?${RANGE}&merchant_id=1`, 'merchant')).toBe(200);
  });

  it('forged level and merchant headers change nothing', async () => {
    const forged = { 'x-userlevel': '1', 'x-merchantid': String(w.m2.merchant) };
    const res = await w.t.json<ConsumptionReport>(
      `/backend/reports/consumption?${RANGE}`,
      bearer(tokens.get('merchant')!, forged),
    );
    expect(res.body.merchant_id).toBe(1);
    expect(res.body.rows.every((r) => r.merchant_id === 1)).toBe(true);
    const two = await w.t.json<ConsumptionReport>(
      `/backend/reports/consumption?${RANGE}`,
      bearer(tokens.get('merchant2')!, { 'x-merchantid': '1' }),
    );
    expect(two.body.totals).toMatchObject({ count: 1, amount_fen: 500 });
  });
});

describe('bad input', () => {
  const bad = [
    'from=2026-13-01&to=2026-11-03',
    'from=2026-02-30',
    'from=2026-11-03&to=2026-11-01',
    'from=2025-01-01&to=2026-11-03',
    'from=yesterday',
    'venue_id=abc',
    'venue_id=0',
    'merchant_id=-1',
    'format=xml',
    'from=2026-11-01&to=',
  ];
  for (const q of bad)
    it(`400 for ${q}`, async () => {
      const res = await w.t.json<{ code: string; details?: Record<string, string> }>(
        `/backend/reports/recharge?${q}`,
        bearer(tokens.get('merchant')!),
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });
  it('400 for a bad daily date', async () => {
    expect(await status('/daily/cash?date=2026-11-31', 'merchant')).toBe(400);
  });
});

describe('CSV', () => {
  async function csv(path: string, user = 'admin') {
    const res = await w.t.request(`/backend${path}`, bearer(tokens.get(user)!));
    expect(res.status).toBe(200);
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  it('UTF-8 with BOM, a header, quotes and commas escaped, yuan with two decimals, a totals line', async () => {
    const { res, bytes } = await csv(`/reports/consumption?${RANGE}&merchant_id=${w.m2.merchant}&format=csv`);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes.slice(3));
    expect(text).toBe(
      [
        '商户,场地,方式,笔数,金额(元),其中赠送(元),退款(元),净额(元)',
        '第二商户,"二号""场"",B",微信,1,5.00,0.00,0.00,5.00',
        '合计,,,1,5.00,0.00,0.00,5.00',
        '',
      ].join('\r\n'),
    );
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="report-consumption_2026-11-01_2026-11-03.csv"; filename*=UTF-8''${encodeURIComponent('消费报表_2026-11-01_2026-11-03.csv')}`,
    );
  });

  it('the cash report by employee, names escaped; the daily file names its day', async () => {
    const { bytes } = await csv(`/reports/cash?${RANGE}&format=csv`, 'merchant');
    const lines = new TextDecoder().decode(bytes.slice(3)).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '日期,商户,经办人,现金充值笔数,现金充值(元),现金消费笔数,现金消费(元),退还现金(元),应有现金(元)',
    );
    expect(lines[2]).toBe('2026-11-01,星河共享自助,"李,""四""",0,0.00,1,2.00,0.00,2.00');
    expect(lines.at(-1)).toBe('合计,,,2,120.00,2,8.00,2.90,125.10');
    const daily = await csv('/daily/cash?date=2026-11-02&format=csv', 'merchant');
    expect(daily.res.headers.get('content-disposition')).toContain('daily-cash_2026-11-02.csv');
  });

  it('device usage: utilisation as a percentage', async () => {
    const { bytes } = await csv(`/reports/device-usage?${RANGE}&merchant_id=1&format=csv`);
    const lines = new TextDecoder().decode(bytes.slice(3)).trimEnd().split('\r\n');
    expect(lines).toHaveLength(8);
    expect(lines[1]).toBe('星河共享自助,星河广场店,广场 1 号充电桩,XH-CP-0001,2,45,2.90,2.60,1.04%');
    expect(lines[7]).toBe('合计,,,,7,226,13.50,9.00,0.87%');
  });

  it('announces its data rows (header and 合计 line not counted) before the body, for every report', async () => {
    const paths = [
      ...['device-usage', 'recharge', 'cash', 'consumption'].map((k) => `/reports/${k}?${RANGE}&format=csv`),
      `/reports/device-usage?${RANGE}&venue_id=1&format=csv`,
      '/daily/cash?date=2026-11-02&format=csv',
    ];
    for (const path of paths) {
      for (const user of ['admin', 'merchant']) {
        const { res, bytes } = await csv(path, user);
        const lines = new TextDecoder().decode(bytes.slice(3)).trimEnd().split('\r\n');
        expect(res.headers.get(CSV_ROWS_HEADER), `${user} ${path}`).toBe(String(lines.length - 2));
      }
    }
    const own = await csv('/daily/cash?date=2026-11-02&format=csv', 'employee');
    const ownLines = new TextDecoder().decode(own.bytes.slice(3)).trimEnd().split('\r\n');
    expect(own.res.headers.get(CSV_ROWS_HEADER)).toBe(String(ownLines.length - 2));
  });
});
