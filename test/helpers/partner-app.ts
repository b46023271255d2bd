import { createServer, type IncomingHttpHeaders } from 'node:http';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { WAIT_LIMIT_MS } from './wait.js';
import { closeServer, listen } from './loopback.js';

// A partner's webhook endpoint as the README tells partners to write one: the raw body checked with the package's
// own verifier (src/webhooks/verify.ts, exported as card-issuing-sandbox/webhooks) before anything is trusted.

interface AppDelivery {
  headers: IncomingHttpHeaders;
  rawBody: string;
  verified: boolean;
  reason?: string;
}

export interface PartnerApp {
  url: string;
  deliveries: AppDelivery[];
  /** The secret the app verifies with; set when it is learnt (listen prints it). */
  secret: string;
  /** Resolves when `count` deliveries have arrived (generous limit: a loaded machine is slow, never wrong). */
  waitFor(count: number, timeoutMs?: number): Promise<AppDelivery[]>;
  close(): Promise<void>;
}

export async function startPartnerApp(prefix = 'Service', secret = ''): Promise<PartnerApp> {
  const waiters = new Set<() => void>();
  const app = { deliveries: [] as AppDelivery[], secret } as PartnerApp;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const check = verifyWebhookSignature({
        rawBody,
        header: req.headers[`${prefix.toLowerCase()}-signature`],
        secret: app.secret,
      });
      app.deliveries.push({
        headers: req.headers,
        rawBody: rawBody.toString('utf8'),
        verified: check.ok,
        reason: check.ok ? undefined : check.reason,
      });
      res.writeHead(check.ok ? 200 : 400).end();
      for (const w of waiters) w();
    });
  });
  app.url = `${await listen(server)}/hooks`;
  app.waitFor = (count, timeoutMs = WAIT_LIMIT_MS) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (app.deliveries.length < count) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(app.deliveries);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${app.deliveries.length} of ${count} deliveries arrived`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  app.close = () => closeServer(server);
  return app;
}
