import { Hono } from 'hono';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { contractsDir } from './files.js';

// GET /openapi.json and an API reference page at GET /docs that works with no internet access: the page and its
// assets come from the installed swagger-ui-dist, the document from contracts/openapi.json. Outside auth, like
// any published reference. Files are read on first request, so they cost the server's start-up nothing.

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Card Issuing API reference</title>
    <link rel="stylesheet" type="text/css" href="/docs/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="/docs/index.css" />
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32" />
    <link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/docs/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="/docs/init.js" charset="UTF-8"></script>
  </body>
</html>
`;

// A file, not an inline script, so a strict Content-Security-Policy in front of the sandbox still allows it.
const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

const cache = new Map<string, Buffer>();

function cached(key: string, read: () => Buffer): Buffer {
  let hit = cache.get(key);
  if (!hit) cache.set(key, (hit = read()));
  return hit;
}

function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

// init.js is answered by the folder's one route: a static route beside `/docs/:file` is a pair the app's router
// (RegExpRouter, app.ts) refuses.
export function docsRoutes() {
  return new Hono()
    .get('/openapi.json', (c) => {
      const doc = cached('openapi', () => readFileSync(join(contractsDir(), 'openapi.json')));
      return c.body(new Uint8Array(doc), 200, { 'Content-Type': 'application/json; charset=utf-8' });
    })
    .get('/docs', (c) => c.html(PAGE))
    .get('/docs/:file', (c) => {
      const file = c.req.param('file');
      if (file === 'init.js') return c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
      const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      if (!type) return c.notFound();
      const bytes = cached(file, () => readFileSync(join(swaggerUiDir(), file)));
      return c.body(new Uint8Array(bytes), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
    });
}
