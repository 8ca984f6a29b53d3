import net from 'node:net';

/**
 * The floor of any forwarder, for the proxy soak (`node bench/tcp-relay.ts <upstream URL>`): every
 * client connection gets one upstream connection and the bytes are piped both ways, nothing parsed,
 * nothing judged. What it costs an exchange, a proxy that reads HTTP and judges it can only add to.
 * Prints its URL, then relays until killed.
 */
const upstream = new URL(process.argv[2] ?? '');
const server = net.createServer((client) => {
  const target = net.connect(Number(upstream.port), upstream.hostname);
  client.setNoDelay(true);
  target.setNoDelay(true);
  client.pipe(target);
  target.pipe(client);
  const end = () => {
    client.destroy();
    target.destroy();
  };
  for (const s of [client, target]) s.on('error', end).on('close', end);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as net.AddressInfo;
  process.stdout.write(`http://127.0.0.1:${port}\n`);
});
