/**
 * The label's QR code decodes to the device's pay link: the SVG the label sheet and the download use is read back
 * square by square, rasterised, and decoded with a QR reader (jsQR), for demo devices and a batch just added.
 */
import jsQR from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { Device } from '../../../src/domain/devices.schema';
import { qrSvg } from '../../../src/ui/qr-code';
import { createTestApp, type TestApp } from '../test-app';
import { as, send } from './helpers';

/** Decodes an SVG made of `M<x> <y>h1v1h-1z` squares on a `viewBox="0 0 n n"`, at `scale` pixels per module. */
function decodeSvg(svg: string, scale = 4): string | null {
  const n = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const size = n * scale;
  const px = new Uint8ClampedArray(size * size * 4).fill(255);
  for (const [, xs, ys] of svg.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    const x0 = Number(xs) * scale;
    const y0 = Number(ys) * scale;
    for (let y = y0; y < y0 + scale; y++)
      for (let x = x0; x < x0 + scale; x++) px.fill(0, (y * size + x) * 4, (y * size + x) * 4 + 3);
  }
  return jsQR(px, size, size)?.data ?? null;
}

let t: TestApp;
let merchant: string;
beforeAll(async () => {
  t = await createTestApp({ env: { PUBLIC_URL: 'https://pay.example.cn' } });
  merchant = await t.login('merchant');
});
afterAll(async () => t?.close());

describe('QR labels', () => {
  it("each label's QR decodes to its device's pay_url", async () => {
    const batch = await t.json<{ items: Device[] }>(
      '/backend/merchant/devices',
      as(merchant, send('POST', { venue_id: 2, product_id: 1, count: 3, name_prefix: '标签测试 ' })),
    );
    expect(batch.status).toBe(201);
    const { body } = await t.json<Page<Device>>('/backend/merchant/devices?page_size=100', as(merchant));
    expect(body.items).toHaveLength(9);
    for (const d of body.items) {
      expect(d.pay_url).toBe(`https://pay.example.cn/user/pay?device_id=${d.id}&venue_id=${d.venue_id}`);
      expect(decodeSvg(qrSvg(d.pay_url))).toBe(d.pay_url);
    }
  });

  it('a moved device gets a new code: the old one still decodes to the old venue, which the pay page explains', async () => {
    const before = (await t.json<Device>('/backend/merchant/devices/1', as(merchant))).body;
    const moved = (
      await t.json<Device>('/backend/merchant/devices/1', as(merchant, send('PUT', { venue_id: 2 })))
    ).body;
    expect(decodeSvg(qrSvg(moved.pay_url))).toBe(moved.pay_url);
    expect(decodeSvg(qrSvg(before.pay_url))).toContain('venue_id=1');
    expect(moved.pay_url).toContain('venue_id=2');
  });

  it('the member code on 我的 comes from the same library and decodes (narrow quiet zone)', () => {
    const code = '31415926';
    expect(decodeSvg(qrSvg(code, 1), 6)).toBe(code);
  });
});
