// Hash routing: #/page/arg?key=value. The page is a plain link target, so history and keyboard work as usual.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  page: string;
  arg: string | null;
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const h = hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = h.split('?');
  const [page = '', ...rest] = path.split('/');
  return {
    page: page || 'overview',
    arg: rest.length ? decodeURIComponent(rest.join('/')) : null,
    query: new URLSearchParams(query),
  };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function go(hash: string): void {
  location.hash = hash;
}
