import { Router } from 'express';

/**
 * A router of the service. Paths match case-sensitively, as the app's own routes do (`case
 * sensitive routing`): `/API/v2/session` is no path of ours and answers 404, instead of reaching
 * the route past every middleware that compares paths and adding a metrics series per spelling.
 */
export function caseSensitiveRouter(): Router {
  return Router({ caseSensitive: true });
}
