/**
 * BENCH_STALLS=1 (bench/lib.ts, watchStalls): a thread that catches what the bench's main thread runs when it stalls.
 * The main thread writes the time into shared memory every 5 ms; when that time is over `thresholdMs` old, this
 * thread pauses the main thread through the inspector (connectToMainThread) and keeps the paused call stack, then
 * resumes it. The pause lands at the stalled code's next interrupt check, so a stall in JavaScript is caught in
 * the act; one in native code shows what runs right after it. Plain JavaScript, so the worker needs no loader.
 */
/* global setInterval, setTimeout, clearInterval */
import { Session } from 'node:inspector';
import { parentPort, workerData } from 'node:worker_threads';

const beat = new Float64Array(workerData.shared);
const thresholdMs = workerData.thresholdMs;
const caught = [];
const session = new Session();
session.connectToMainThread();
const post = (method, params) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
  );

let catching = false;
session.on('Debugger.paused', (m) => {
  const lag = Date.now() - beat[0];
  caught.push({
    lagMs: lag,
    frames: m.params.callFrames
      .slice(0, 14)
      .map(
        (f) =>
          `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-3).join('/')}:${f.location.lineNumber + 1}`,
      ),
  });
  post('Debugger.resume').catch(() => {});
});

const timer = setInterval(async () => {
  if (catching || beat[0] === 0 || Date.now() - beat[0] < thresholdMs) return;
  catching = true;
  try {
    await post('Debugger.enable');
    await post('Debugger.pause');
    // Resumed by the handler above; give the main thread its turn before the next catch.
    await new Promise((r) => setTimeout(r, 200));
    await post('Debugger.disable');
  } catch {
    // the main thread went away
  } finally {
    catching = false;
  }
}, 5);

parentPort.on('message', () => {
  clearInterval(timer);
  parentPort.postMessage(caught);
});
