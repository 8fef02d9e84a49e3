// `npm run sdk:generate`: the SDK's types and its table of operations from the OpenAPI document
// the service serves (scripts/openapi-document.ts writes it to dist/openapi.json first).
// test/sdk.test.ts compares the committed files with what this produces from the running
// service, so a stale file fails CI.
import { readFile, writeFile } from 'node:fs/promises';
import { createConfig } from '@redocly/openapi-core';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import type { OperationEntry } from '../src/operation-entry.js';

export const GENERATED_TYPES = new URL('../src/generated/openapi.ts', import.meta.url);
export const GENERATED_OPERATIONS = new URL('../src/generated/operations.ts', import.meta.url);

export async function generateTypes(document: OpenAPI3): Promise<string> {
  // No lint rules while bundling: linting the document is `npm run openapi:lint`'s job.
  const redocly = await createConfig({}, { extends: [] });
  return `${COMMENT_HEADER}${astToString(await openapiTS(document, { redocly, silent: true }))}`;
}

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  contentEncoding?: string;
  contentMediaType?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
};
interface Parameter {
  $ref?: string;
  name: string;
  in: string;
}
interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { $ref?: string; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { $ref?: string; description?: string; content?: Record<string, { schema?: Schema }> }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Security scheme names of the document, by the credential the client holds for them. */
const CREDENTIALS: Record<string, OperationEntry['auth']> = {
  ApiKeyHeader: 'apiKey',
  ApiKeyBearer: 'apiKey',
  ClientId: 'orgClient',
  ClientSecret: 'orgClient',
  AccessToken: 'accessToken',
};

function resolve<T extends { $ref?: string }>(document: OpenAPI3, value: T): T {
  if (!value.$ref) return value;
  const target = value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    );
  if (!target) throw new Error(`unresolvable $ref ${value.$ref}`);
  return resolve(document, target as T);
}

function authOf(operationId: string, security: Record<string, string[]>[]): OperationEntry['auth'] {
  const credentials = new Set(
    security.flatMap((requirement) =>
      Object.keys(requirement).map((scheme) => {
        const credential = CREDENTIALS[scheme];
        if (!credential)
          throw new Error(
            `${operationId}: security scheme ${scheme} is new to the SDK generator (packages/sdk/scripts/generate.ts CREDENTIALS)`,
          );
        return credential;
      }),
    ),
  );
  if (credentials.size > 1)
    throw new Error(`${operationId}: more than one kind of credential (${[...credentials].join(', ')})`);
  return [...credentials][0] ?? 'none';
}

/**
 * An image field that may also be sent as a file. The document does not declare the
 * multipart/form-data bodies the checks take as well as JSON, so until it does the field's
 * description says so ("or send multipart/form-data files", "a data URL or a file").
 */
function isFileField(schema: Schema): boolean {
  return schema.format === 'binary' || /multipart|\ba file\b/i.test(schema.description ?? '');
}

function hasFileField(document: OpenAPI3, schema: Schema | undefined): boolean {
  if (!schema) return false;
  const resolved = resolve(document, schema);
  if (
    [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? []), ...(resolved.allOf ?? [])].some((part) =>
      hasFileField(document, part),
    )
  )
    return true;
  return Object.values(resolved.properties ?? {}).some((field) => {
    const property = resolve(document, field);
    return isFileField(property) || (property.items !== undefined && isFileField(resolve(document, property.items)));
  });
}

/** Where the items of a list operation's page are: `data` itself (null) or its one array field. */
function pageItems(document: OpenAPI3, operationId: string, success: Schema | undefined): string | null {
  const data = success && resolve(document, success).properties?.data;
  const resolved = data && resolve(document, data);
  if (!resolved) throw new Error(`${operationId}: a list operation without an enveloped success`);
  if (resolved.type === 'array') return null;
  const arrays = Object.entries(resolved.properties ?? {}).filter(
    ([, field]) => resolve(document, field).type === 'array',
  );
  if (arrays.length !== 1) throw new Error(`${operationId}: a list operation whose data holds ${arrays.length} arrays`);
  return arrays[0]![0];
}

function entryOf(document: OpenAPI3, method: string, path: string, operation: Operation): OperationEntry {
  const operationId = operation.operationId!;
  const parameters = (operation.parameters ?? []).map((parameter) => resolve(document, parameter));
  const content = operation.requestBody ? (resolve(document, operation.requestBody).content ?? {}) : {};
  const body =
    'application/json' in content || 'multipart/form-data' in content
      ? 'json'
      : 'application/x-www-form-urlencoded' in content
        ? 'form'
        : null;
  const responses = Object.entries(operation.responses ?? {}).map(
    ([status, response]) => [status, resolve(document, response)] as const,
  );
  const success = responses.find(([status]) => status.startsWith('2'))?.[1].content?.['application/json']?.schema;
  return {
    method: method.toUpperCase(),
    path,
    auth: authOf(
      operationId,
      operation.security ?? (document.security as Record<string, string[]>[] | undefined) ?? [],
    ),
    body,
    uploads: 'multipart/form-data' in content || hasFileField(document, content['application/json']?.schema),
    idempotencyKey:
      parameters.some((parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key') ||
      responses.some(([, response]) => /\bidempotency_key_reused\b/.test(response.description ?? '')),
    pagination: parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'cursor')
      ? { items: pageItems(document, operationId, success) }
      : null,
  };
}

/** packages/sdk/src/generated/operations.ts: every operation of the document, by operationId. */
export function generateOperations(document: OpenAPI3): string {
  const lines: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const entry = entryOf(document, method, path, operation);
      if (operation.summary)
        lines.push(`  /** ${method.toUpperCase()} ${path}: ${operation.summary.replace(/\*\//g, '*\\/')} */`);
      lines.push(`  ${JSON.stringify(operation.operationId)}: ${JSON.stringify(entry)},`);
    }
  }
  return [
    '// Generated by packages/sdk/scripts/generate.ts from the OpenAPI document (npm run sdk:generate): do not edit.',
    "import type { OperationEntry } from '../operation-entry.js';",
    '',
    'export const OPERATIONS = {',
    ...lines,
    '} as const satisfies Record<string, OperationEntry>;',
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const document = JSON.parse(await readFile(process.argv[2] ?? 'dist/openapi.json', 'utf8')) as OpenAPI3;
  await writeFile(GENERATED_TYPES, await generateTypes(document));
  await writeFile(GENERATED_OPERATIONS, generateOperations(document));
  console.log('wrote packages/sdk/src/generated/openapi.ts and operations.ts');
}
