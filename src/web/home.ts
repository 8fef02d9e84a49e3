import { Router } from 'express';

/** `/`: what this server is and where to go next, for a person who opens it in a browser. */
export function homeRouter() {
  const router = Router();
  router.get('/', (_req, res) => {
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verity</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b2330}a{color:#2457c5}code{background:#eef1f6;padding:0 .25rem;border-radius:3px}</style>
</head><body>
<h1>Verity</h1>
<p>Identity verification, OpenID Connect login and workforce roster service.</p>
<ul>
<li><a href="/readyz">Readiness</a> and <a href="/healthz">health</a></li>
<li><a href="/api/v2/openapi.json">REST API (OpenAPI 3.1)</a>: send your API key as <code>X-API-Key</code></li>
<li>Admin API: <code>POST /graphql</code> and <code>/trpc</code> with an admin token</li>
</ul>
</body></html>`);
  });
  return router;
}
