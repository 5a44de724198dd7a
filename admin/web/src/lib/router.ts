// A small history router for the paths under /admin/ (the server answers index.html for them).
import { useEffect, useState } from 'react';

export const base = '/admin';

/** The current route: the path after /admin, "/" at the root. */
export function currentRoute(): string {
  const p = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : location.pathname;
  return p === '' ? '/' : p;
}

/** Goes to a route under /admin. */
export function navigate(route: string): void {
  history.pushState(null, '', base + route);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The current route, updated on navigation. */
export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  return route;
}
