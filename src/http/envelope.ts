// The success envelope every API of the server shares: action endpoints answer it alone, simulation and operator
// answers carry it beside their data (docs/design.md, "Responses").

export const OK = { code: 0, message: 'ok' } as const;
