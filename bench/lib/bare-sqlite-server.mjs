// The cold-start floor: a bare Hono server on @hono/node-server that opens a SQLite file with better-sqlite3 (WAL,
// one table) and answers /healthz from a read, started as `serve` is (a new database file, then listen).
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';

const db = new Database(process.env.DB);
db.pragma('journal_mode = WAL');
db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
const count = db.prepare('SELECT count(*) FROM meta').pluck();
const app = new Hono();
app.get('/healthz', (c) => c.json({ status: 'ok', rows: count.get() }));
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });
