import type { Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

// Servers a test starts on the loopback interface, on a port the system chooses (a fixed port would collide with
// another test file running at the same time).

/** Listens on 127.0.0.1 at a port the system picks; resolves with its base URL, `http://127.0.0.1:<port>`. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes a server and (an HTTP server's) every connection, idle or not; resolves once it is closed. */
export function closeServer(server: Server | HttpServer): Promise<void> {
  return new Promise((resolve) => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** A port that was free a moment ago, for a child process that must be told its port before it starts. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  const { port } = new URL(await listen(probe));
  await new Promise((resolve) => probe.close(resolve));
  return Number(port);
}

/** Everything the server sent on a socket until it closed it. */
export function untilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve(text));
  });
}
