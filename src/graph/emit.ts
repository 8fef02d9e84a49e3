// Writes schema.graphql from the resolvers: `npm run schema`. A test fails when the committed file differs.
import { writeFile } from 'node:fs/promises';
import { printSchema } from 'graphql';
import { graphSchema } from './schema.js';

const target = process.argv[2] ?? 'schema.graphql';
await writeFile(target, `${printSchema(await graphSchema())}\n`);
console.log(`wrote ${target}`);
