/**
 * The devices scheduler's passes (server/services/devices/device-scheduler.ts): one at a time in a process, a pass
 * asked for runs after the one in flight, and the periodic timer neither piles passes up nor starts one after stop.
 */
import { describe, expect, it } from 'vitest';
import { oneAtATime, runPeriodically } from '../../../server/services/devices/device-scheduler';

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** A pass that records its start and end and ends (or fails) when `end()` is called. */
function gatedPass() {
  const log: string[] = [];
  const gates: ((fail: boolean) => void)[] = [];
  let n = 0;
  const pass = () => {
    const i = ++n;
    log.push(`start ${i}`);
    return new Promise<number>((ok, no) =>
      gates.push((fail) => {
        log.push(`end ${i}`);
        if (fail) no(new Error(`pass ${i} failed`));
        else ok(i);
      }),
    );
  };
  const end = async (fail = false) => {
    while (gates.length === 0) await sleep(1);
    gates.shift()!(fail);
  };
  return { log, pass, end };
}

describe('oneAtATime', () => {
  it('runs a pass asked for after the one in flight, and goes on after one fails', async () => {
    const g = gatedPass();
    const passes = oneAtATime(g.pass);
    expect(passes.busy).toBe(false);
    const first = passes.run();
    const second = passes.run();
    expect(passes.busy).toBe(true);
    await g.end(true);
    await expect(first).rejects.toThrow('pass 1 failed');
    expect(passes.busy).toBe(true);
    await g.end();
    expect(await second).toBe(2);
    expect(passes.busy).toBe(false);
    expect(g.log).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('is settled once every pass asked for is over, failed ones included', async () => {
    const g = gatedPass();
    const passes = oneAtATime(g.pass);
    const first = passes.run().catch(() => 'failed');
    const second = passes.run();
    let over = false;
    void passes.settled.then(() => {
      over = true;
    });
    await g.end(true);
    expect(await first).toBe('failed');
    await sleep(5);
    expect(over).toBe(false);
    await g.end();
    await second;
    await passes.settled;
    expect(over).toBe(true);
  });
});

describe('runPeriodically', () => {
  it('skips its ticks while a pass runs, and stop waits for that pass and starts no other', async () => {
    const g = gatedPass();
    const passes = oneAtATime(g.pass);
    const stop = runPeriodically(passes, 5);
    while (g.log.length === 0) await sleep(5);
    await sleep(40); // several ticks come due while the first pass runs
    expect(g.log).toEqual(['start 1']);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    await sleep(5);
    expect(stopped).toBe(false);
    await g.end();
    await stopping;
    await sleep(40);
    expect(g.log).toEqual(['start 1', 'end 1']);
  });
});
