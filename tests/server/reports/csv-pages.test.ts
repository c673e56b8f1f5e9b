/**
 * The device usage CSV is streamed in keyset pages of devices (reports.csv-pages.ts): with pages of 2 devices, its
 * records equal the records of the whole report built at once, for the merchant, the admin, a venue filter with a
 * device moved away (its usage at the venue still listed), an employee's own figures, before and after the daily
 * rollup; the row count announced before the rows is the number of rows that follow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { buildReport } from '../../../server/routes/reports/reports.build';
import { csvRecords } from '../../../server/routes/reports/reports.csv';
import { deviceUsageCsv, deviceUsageCsvOf } from '../../../server/routes/reports/reports.csv-pages';
import type { ReportScope } from '../../../server/routes/reports/reports.source';
import { withRollups } from '../../../server/routes/reports/reports.split';
import { rollUpReports } from '../../../server/services/report-rollup';
import { createWorld, NOW, type World } from './report-world';

let w: World;
beforeAll(async () => {
  w = await createWorld();
  // Device 1 (used at venue 1) now stands in venue 2: venue 1's report still lists its usage there.
  await w.t.deps.db.execute(sql`update devices set venue_id = 2 where id = 1`);
}, 60_000);
afterAll(async () => w?.t.close());

const scope = (over: Partial<ReportScope>): ReportScope => ({
  merchantId: 1,
  venueId: null,
  operatorId: null,
  from: '2026-10-30',
  to: '2026-11-03',
  tz: w.t.deps.env.TZ,
  now: NOW,
  ...over,
});

async function expectPagesEqualWhole(s: ReportScope) {
  const db = w.t.deps.db;
  const split = await withRollups(db, s);
  const paged = [];
  for await (const r of deviceUsageCsv(db, split, 2)) paged.push(r);
  const whole = [...csvRecords('device-usage', await buildReport('device-usage', db, split))];
  expect(paged).toEqual(whole);
  expect(paged.length).toBeGreaterThan(2);
  // Announced before the first row: the data rows to come, header and 合计 line not counted.
  const announced = await deviceUsageCsvOf(db, split, 2);
  const records = [];
  for await (const r of announced.records) records.push(r);
  expect(records).toEqual(whole);
  expect(announced.rows).toBe(whole.length - 2);
}

describe('device usage CSV in keyset pages', () => {
  it('equals the whole report for each scope, before and after the rollup', async () => {
    const scopes = [
      scope({}),
      scope({ merchantId: null }),
      scope({ venueId: 1 }),
      scope({ venueId: 2 }),
      scope({ operatorId: w.employee }),
    ];
    for (const s of scopes) await expectPagesEqualWhole(s);
    await rollUpReports(w.t.deps.db, w.t.deps.env.TZ, NOW);
    for (const s of scopes) await expectPagesEqualWhole(s);
  });
});
