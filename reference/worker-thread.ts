// The reference on a worker thread (started by worker.ts): starts the server, posts how to reach
// it, and closes it when asked.
import { parentPort, workerData } from 'node:worker_threads';
import { startReference } from './server.ts';

const port = parentPort!;
try {
  const handle = await startReference(workerData);
  port.postMessage({
    ok: true,
    target: handle.target(),
    urls: handle.urls,
    faults: handle.context.faults.names,
  });
  port.on('message', async (msg) => {
    if (msg === 'close') {
      await handle.close();
      port.postMessage({ closed: true });
    }
  });
} catch (err: any) {
  port.postMessage({ ok: false, name: err?.constructor?.name, message: String(err?.message ?? err) });
}
