// The baseline: a bare Express handler, nothing else. Prints its URL and serves until killed.
import express from 'express';

const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(JSON.stringify({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }));
});
