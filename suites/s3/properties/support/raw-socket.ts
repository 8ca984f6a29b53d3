import net from 'node:net';

/**
 * Sends bytes exactly as given and returns the status line's code. For requests no HTTP client
 * will send, such as Transfer-Encoding together with Content-Length.
 */
export function sendRaw(url: URL, head: string, body: string, timeoutMs = 10_000): Promise<number> {
  // Every name under .localhost is loopback (RFC 6761), as the runner's agent resolves it.
  const host = url.hostname.endsWith('.localhost') ? '127.0.0.1' : url.hostname;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${url.host} within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
      if (m) resolve(Number(m[1]));
      else reject(new Error(`no HTTP status line from ${url.host}: ${JSON.stringify(answer.slice(0, 60))}`));
    };
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      if (/^HTTP\/1\.[01] \d{3}/.test(answer)) {
        socket.destroy();
        finish();
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      // A peer that resets after answering has still answered.
      if (answer) finish();
      else reject(err);
    });
    socket.on('close', () => {
      if (!answer) {
        clearTimeout(timer);
        reject(new Error(`${url.host} closed the connection without an answer`));
      }
    });
    socket.write(head + body);
  });
}
