// The session's token: taken from the URL's #token=<jwt> (then removed from the address bar and the
// history entry with history.replaceState), else from sessionStorage, where it is kept for the tab.
const key = 'coupond.admin.token';

/** Reads #token= from the location (storing it and clearing it from the URL), else the stored token. */
export function takeToken(loc: Location = window.location, store: Storage = window.sessionStorage): string | null {
  const m = /(?:^#|&)token=([^&]+)/.exec(loc.hash);
  if (m) {
    const token = decodeURIComponent(m[1]);
    store.setItem(key, token);
    window.history.replaceState(window.history.state, '', loc.pathname + loc.search);
    return token;
  }
  return store.getItem(key);
}

/** Keeps a pasted token for this tab. */
export function saveToken(token: string, store: Storage = window.sessionStorage): void {
  store.setItem(key, token.trim());
}

/** Forgets the token (sign out). */
export function clearToken(store: Storage = window.sessionStorage): void {
  store.removeItem(key);
}
