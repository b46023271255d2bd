import type { Server } from 'node:http';

/**
 * Stops accepting connections and waits for in-flight requests to finish, for at most `graceMs`; then cuts
 * whatever is left. `server.close()` only closes the connections idle at the moment it is called, so a
 * keep-alive connection that goes idle later (its last response just sent) is swept until the server is closed.
 */
export function drainHttpServer(server: Server, graceMs: number): Promise<{ cut: boolean }> {
  return new Promise((resolve) => {
    let cut = false;
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const deadline = setTimeout(() => {
      cut = true;
      server.closeAllConnections();
    }, graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve({ cut });
    });
    server.closeIdleConnections();
  });
}
