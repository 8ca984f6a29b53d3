// Runs the reference in a worker thread: tsx compiles its TypeScript there as in the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { startReference } = await import('./server.ts');
try {
  const handle = await startReference(workerData);
  parentPort.postMessage({
    ok: true,
    target: handle.target(),
    urls: handle.urls,
    faults: handle.context.faults.names,
  });
  parentPort.on('message', async (msg) => {
    if (msg === 'close') {
      await handle.close();
      parentPort.postMessage({ closed: true });
    }
  });
} catch (err) {
  parentPort.postMessage({ ok: false, name: err?.constructor?.name, message: String(err?.message ?? err) });
}
