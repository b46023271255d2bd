import type { paths } from '../contracts/api-types.js';

// A request body as its operation's contract types it (contracts/ -> src/contracts/api-types.d.ts, generated): the
// body step has checked it against the same schema before a handler reads it, so the type is what arrives.

type JsonBody<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The body of an operation by its key in contracts/index.json (`POST /v1/card/create`); `{}` for one with none. */
export type RequestBody<Key extends string> = Key extends `${infer Method} ${infer Path}`
  ? Path extends keyof paths
    ? Lowercase<Method> extends keyof paths[Path]
      ? [JsonBody<paths[Path][Lowercase<Method>]>] extends [never]
        ? Record<string, never>
        : NonNullable<JsonBody<paths[Path][Lowercase<Method>]>>
      : never
    : never
  : never;

/** Every operation key the contract lists, as the generated paths spell them. */
export type OperationKey = {
  [Path in keyof paths & string]: {
    [Method in Extract<keyof paths[Path], HttpMethod>]: paths[Path][Method] extends undefined
      ? never
      : `${Uppercase<Method>} ${Path}`;
  }[Extract<keyof paths[Path], HttpMethod>];
}[keyof paths & string];

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
