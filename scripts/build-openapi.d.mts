/** The OpenAPI 3.1 document assembled from contracts/ (scripts/build-openapi.mjs). */
export function buildOpenApi(dir?: string): Record<string, unknown>;
/** The same, serialised exactly as contracts/openapi.json is written. */
export function renderOpenApi(dir?: string): string;
/** src/contracts/api-types.d.ts: the generated client types. */
export const TYPED_CLIENT_TYPES: string;
/** What openapi-typescript (default options) generates from `doc`, Prettier-formatted. */
export function renderTypedClient(doc: unknown): Promise<string>;
