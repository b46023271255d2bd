import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in in front of a sandbox that passes every request on unchanged and notes the Idempotency-Key of each keyed
// write: what a tool of ours sent, where the sandbox's own request log cannot tell (the tool's child sandbox, and its
// log, are deleted when it ends).

const KEYED = /^\/v1\/card\/(?:create|deposit|freeze|unfreeze|cancel)$/;

export interface KeyedWriteRecorder {
  url: string;
  /** Every keyed write passed on, in order: its path and the Idempotency-Key it carried (undefined: none). */
  writes: { path: string; key: string | undefined }[];
  close(): Promise<void>;
}

export async function recordKeyedWrites(upstream: string): Promise<KeyedWriteRecorder> {
  const writes: KeyedWriteRecorder['writes'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on(
      'end',
      () =>
        void (async () => {
          const path = req.url!.split('?')[0]!;
          if (req.method === 'POST' && KEYED.test(path)) {
            writes.push({ path, key: req.headers['idempotency-key'] as string | undefined });
          }
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers))
            if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
          const answer = await fetch(upstream + req.url, {
            method: req.method,
            headers,
            body: chunks.length ? Buffer.concat(chunks) : undefined,
          });
          const passed: Record<string, string> = {};
          answer.headers.forEach((v, k) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) passed[k] = v;
          });
          res.writeHead(answer.status, passed).end(Buffer.from(await answer.arrayBuffer()));
        })(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    writes,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
