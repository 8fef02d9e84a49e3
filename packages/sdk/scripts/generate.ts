// `npm run sdk:generate`: the SDK's types from the OpenAPI document the service serves
// (scripts/openapi-document.ts writes it to dist/openapi.json first). test/sdk.test.ts compares
// the committed file with what this produces from the running service, so a stale file fails CI.
import { readFile, writeFile } from 'node:fs/promises';
import { createConfig } from '@redocly/openapi-core';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

export const GENERATED_TYPES = new URL('../src/generated/openapi.ts', import.meta.url);

export async function generateTypes(document: OpenAPI3): Promise<string> {
  // No lint rules while bundling: linting the document is `npm run openapi:lint`'s job.
  const redocly = await createConfig({}, { extends: [] });
  return `${COMMENT_HEADER}${astToString(await openapiTS(document, { redocly, silent: true }))}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const document = JSON.parse(await readFile(process.argv[2] ?? 'dist/openapi.json', 'utf8')) as OpenAPI3;
  await writeFile(GENERATED_TYPES, await generateTypes(document));
  console.log('wrote packages/sdk/src/generated/openapi.ts');
}
