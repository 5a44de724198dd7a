import { describe, expect, it } from 'vitest';
import { takeToken } from './auth';

describe('sign-in from the URL', () => {
  it('keeps #token= in sessionStorage and removes it from the address', () => {
    window.history.replaceState(null, '', '/admin/templates#token=abc.def.ghi');
    expect(takeToken()).toBe('abc.def.ghi');
    expect(window.location.hash).toBe('');
    expect(window.location.pathname).toBe('/admin/templates');
    expect(window.sessionStorage.getItem('coupond.admin.token')).toBe('abc.def.ghi');
    expect(takeToken()).toBe('abc.def.ghi'); // later loads read the stored token
  });
});
