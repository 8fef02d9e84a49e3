import { readFileSync } from 'node:fs';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { QUERIES } from '../../web/console/queries.js';

// Every GraphQL document the admin console sends is valid against the server's schema
// (schema.graphql, which test/admin-api.test.ts keeps equal to the resolvers): renaming or removing a
// field the console reads fails here, not in a reviewer's browser.

const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
const documents = Object.entries(QUERIES);

describe("the admin console's GraphQL documents", () => {
  it.each(documents)('%s is valid against schema.graphql', (_name, query) => {
    expect(validate(schema, parse(query)).map((error) => error.message)).toEqual([]);
  });

  it('a renamed field would be caught', () => {
    expect(validate(schema, parse(QUERIES.start.replace('balance', 'walletBalance'))).length).toBeGreaterThan(0);
  });
});
