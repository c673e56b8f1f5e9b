/**
 * BENCH_FTRACE=<ms> (bench/lib.ts, watchStalls): the kernel's scheduler events of each of the app's pay rounds, in
 * the ftrace buffer (/sys/kernel/tracing: root, with tracefs mounted there; where it is not, `mount -t tracefs nodev
 * /sys/kernel/tracing`), with markers from the bench: the round's start (the server's heap) and end, each GC other
 * than a scavenge (its kind and the heap after it), and each stall of the main thread longer than <ms>. Unlike a
 * profiler or the inspector (BENCH_STALLS), nothing of it runs on a thread of its own: the kernel records, and a 5 ms
 * timer on the main thread notices stalls.
 *
 * After the run: `npx tsx bench/sched-trace.ts [trace file]` (default the live buffer) prints, for each round, the
 * CPU each thread had and how long the bench's main thread waited for a CPU while runnable. It named the stalls of
 * docs/performance.md, "The devices out of the server's process": V8's garbage-collection helper threads marking the
 * heap on both cores while the main thread waited its turn.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TRACEFS = '/sys/kernel/tracing';
const EVENTS = 'sched:sched_switch sched:sched_wakeup sched:sched_migrate_task compaction vmscan';
let configured = false;

const heapMb = () => (process.memoryUsage().heapUsed / 1e6).toFixed(0);

/** Writes one marker into the trace (tracing must be on, or the kernel refuses it). */
function mark(text: string): void {
  try {
    fs.writeFileSync(path.join(TRACEFS, 'trace_marker'), text);
  } catch {
    // tracing is off between rounds: nothing to mark
  }
}

/** A GC the bench observed (PerformanceObserver): marked unless it is a scavenge (kind 1). */
export function markGc(kind: number | undefined, durationMs: number): void {
  if (kind !== 1) mark(`GC kind ${kind} ${durationMs.toFixed(1)} ms, heap after ${heapMb()} MB`);
}

/** Turns tracing on for one round (the first call clears and configures the buffer); the returned function ends it. */
export function traceRound(stallMs: number): () => void {
  const write = (f: string, v: string) => fs.writeFileSync(path.join(TRACEFS, f), v);
  if (!configured) {
    write('tracing_on', '0');
    write('trace', '');
    write('trace_clock', 'mono');
    write('buffer_size_kb', '300000');
    write('set_event', EVENTS);
    configured = true;
  }
  write('tracing_on', '1');
  mark(`round start pid ${process.pid} heap ${heapMb()} MB`);
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last > stallMs) mark(`STALL ${Math.round(now - last)} ms`);
    last = now;
  }, 5);
  return () => {
    clearInterval(timer);
    mark('round end');
    write('tracing_on', '0');
  };
}

const SWITCH =
  /\[(\d+)\].*?\s(\d+\.\d+): sched_switch: prev_comm=(.*?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)/;
const MARK = /\s(\d+\.\d+): tracing_mark_write: (.*)$/;

interface Round {
  start: number;
  end: number;
  pid: string;
  marks: string[];
  cpu: Map<string, number>;
  waited: number;
}

/** Per round: CPU seconds by thread, and the main thread's time runnable but off the CPU (prev_state R). */
export function summarize(text: string): Round[] {
  const rounds: Round[] = [];
  let cur: Round | undefined;
  const running = new Map<string, { name: string; since: number }>();
  let preemptedAt: number | undefined;
  for (const line of text.split('\n')) {
    const m = MARK.exec(line);
    if (m) {
      const t = Number(m[1]);
      const pid = /^round start pid (\d+)/.exec(m[2]!)?.[1];
      if (pid) {
        rounds.push((cur = { start: t, end: t, pid, marks: [], cpu: new Map(), waited: 0 }));
        preemptedAt = undefined;
      } else if (cur && m[2] === 'round end') cur.end = t;
      else cur?.marks.push(`${(t - cur.start).toFixed(3)} s: ${m[2]}`);
      continue;
    }
    const s = SWITCH.exec(line);
    if (!s || !cur) continue;
    const [, cpu, ts, , prevPid, prevState, nextComm, nextPid] = s;
    const t = Number(ts);
    const was = running.get(cpu!);
    if (was && cur.end === cur.start)
      cur.cpu.set(was.name, (cur.cpu.get(was.name) ?? 0) + t - Math.max(was.since, cur.start));
    running.set(cpu!, { name: `${nextComm}/${nextPid}`, since: t });
    if (prevPid === cur.pid && prevState!.startsWith('R')) preemptedAt = t;
    if (nextPid === cur.pid && preemptedAt !== undefined) {
      cur.waited += t - preemptedAt;
      preemptedAt = undefined;
    }
  }
  return rounds;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const file = process.argv[2] ?? path.join(TRACEFS, 'trace');
  for (const r of summarize(fs.readFileSync(file, 'utf8'))) {
    const span = r.end - r.start;
    console.log(
      `round at ${r.start.toFixed(3)} s, ${span.toFixed(2)} s: main thread (${r.pid}) waited for a CPU ` +
        `${(r.waited * 1000).toFixed(0)} ms`,
    );
    for (const mk of r.marks) console.log(`  ${mk}`);
    const top = [...r.cpu].sort((a, b) => b[1] - a[1]).slice(0, 10);
    for (const [name, sec] of top) console.log(`  ${(sec * 1000).toFixed(0).padStart(6)} ms  ${name}`);
  }
}
