// The ceiling of our stack: one Hono route on @hono/node-server, no middleware, no database.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/healthz', (c) => c.json({ status: 'ok' }));
app.post('/bare', (c) => c.json({ code: 0, message: 'ok' }));
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });
