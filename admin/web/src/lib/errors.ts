// One place that turns the API's failures into what the screens show: top-level GraphQL errors by
// extensions.code, transport failures, and userErrors by the input field they name.
import type { CombinedError } from '@urql/core';

const byCode: Record<string, string> = {
  UNAUTHENTICATED: 'Your session has ended or the token is not valid: sign in again.',
  FORBIDDEN: 'Your role may not do this.',
  NOT_FOUND: 'Not found (or not yours).',
  RATE_LIMITED: 'Too many requests: wait a moment and retry.',
  BAD_USER_INPUT: 'The request was not valid.',
  COMPLEXITY_LIMIT_EXCEEDED: 'The request asked for too much at once.',
  INTERNAL: 'The server failed; retry in a moment.',
};

/** The codes of a combined error's GraphQL errors. */
export function errorCodes(e: CombinedError | undefined): string[] {
  if (!e) return [];
  return e.graphQLErrors.map((g) => String(g.extensions?.code ?? 'INTERNAL'));
}

/** A sentence for the user: the first GraphQL error by its code, else the network failure. */
export function errorMessage(e: CombinedError | undefined): string | null {
  if (!e) return null;
  if (e.networkError) return `The server could not be reached (${e.networkError.message}).`;
  const g = e.graphQLErrors[0];
  if (!g) return e.message;
  const code = String(g.extensions?.code ?? '');
  if (code === 'BAD_USER_INPUT' || code === 'NOT_FOUND') return `${byCode[code]} ${g.message}`;
  return byCode[code] ?? g.message;
}

export type UserError = { code: string; field?: readonly string[] | null; message: string };

/**
 * userErrors keyed by the input field they name (the last path element: ["input","stock"] → "stock");
 * entries with no field go under "" so none is dropped. Several on one field are joined.
 */
export function fieldErrors(errors: readonly UserError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of errors) {
    const path = e.field ?? [];
    const k = path.length ? path[path.length - 1] : '';
    out[k] = out[k] ? `${out[k]} ${e.message}` : e.message;
  }
  return out;
}
