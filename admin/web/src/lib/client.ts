// The GraphQL client: urql's document cache (a mutation refetches the queries that show its types),
// POST /query for queries and mutations, and graphql-ws on the same path for subscriptions. Everything
// goes to this page's origin.
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from '@urql/core';
import { createClient as createWSClient } from 'graphql-ws';

export const endpoint = '/query';

/** A client that authenticates every request, and its socket, with the token. */
export function makeClient(token: string, onUnauthenticated: () => void): Client {
  const wsURL = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${endpoint}`;
  const ws = createWSClient({
    url: wsURL,
    lazy: true,
    connectionParams: { Authorization: `Bearer ${token}` },
    on: {
      closed: (e) => {
        if ((e as CloseEvent).code === 4401) onUnauthenticated();
      },
    },
  });
  return new Client({
    url: endpoint,
    preferGetMethod: false,
    fetchOptions: () => ({ headers: { Authorization: `Bearer ${token}` } }),
    exchanges: [
      cacheExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || '' };
          return {
            subscribe(sink) {
              const unsubscribe = ws.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
      fetchExchange,
    ],
  });
}
