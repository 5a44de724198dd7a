import { describe, expect, it } from 'vitest';
import { CombinedError } from '@urql/core';
import { GraphQLError } from 'graphql';
import { errorCodes, errorMessage, fieldErrors } from './errors';

describe('error mapping', () => {
  it('maps top-level errors by extensions.code', () => {
    const e = new CombinedError({ graphQLErrors: [new GraphQLError('nope', { extensions: { code: 'UNAUTHENTICATED' } })] });
    expect(errorCodes(e)).toEqual(['UNAUTHENTICATED']);
    expect(errorMessage(e)).toMatch(/sign in again/);
    const nf = new CombinedError({ graphQLErrors: [new GraphQLError('no template 5', { extensions: { code: 'NOT_FOUND' } })] });
    expect(errorMessage(nf)).toBe('Not found (or not yours). no template 5');
  });
  it('names a network failure', () => {
    expect(errorMessage(new CombinedError({ networkError: new Error('Failed to fetch') }))).toMatch(/could not be reached \(Failed to fetch\)/);
    expect(errorMessage(undefined)).toBeNull();
  });
  it('keys every userErrors entry by its field, dropping none', () => {
    expect(fieldErrors([
      { code: 'INVALID_INPUT', field: ['input', 'stock'], message: 'stock must be 1 to 10,000,000' },
      { code: 'INVALID_INPUT', field: ['input', 'stock'], message: 'and at least limitPerPerson' },
      { code: 'INVALID_INPUT', field: ['input', 'validEndTime'], message: 'must be after validStartTime' },
      { code: 'NOT_FOUND', field: null, message: 'no such shop' },
    ])).toEqual({
      stock: 'stock must be 1 to 10,000,000 and at least limitPerPerson',
      validEndTime: 'must be after validStartTime',
      '': 'no such shop',
    });
  });
});
