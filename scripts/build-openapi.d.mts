/** The OpenAPI 3.1 document assembled from contracts/ (scripts/build-openapi.mjs). */
export function buildOpenApi(dir?: string): Record<string, unknown>;
/** The same, serialised exactly as contracts/openapi.json is written. */
export function renderOpenApi(dir?: string): string;
