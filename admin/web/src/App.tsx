import { useMemo, useState } from 'react';
import { Provider, useQuery } from 'urql';
import { AppShell, Alert, Button, Group, Loader, NavLink, Text, TextInput, Title } from '@mantine/core';
import { graphql } from './gql';
import { makeClient } from './lib/client';
import { clearToken, takeToken } from './lib/auth';
import { errorMessage } from './lib/errors';
import { navigate, useRoute } from './lib/router';
import { SessionContext, type Session } from './session';
import { SignIn } from './screens/SignIn';
import { Dashboard } from './screens/Dashboard';
import { Templates } from './screens/Templates';
import { TemplateDetail } from './screens/TemplateDetail';
import { CreateTemplate } from './screens/CreateTemplate';
import { Distribution } from './screens/Distribution';
import { Tasks } from './screens/Tasks';
import { Reconciliation } from './screens/Reconciliation';

const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      role
      userId
      shopNumber
      expiresAt
      settings { statsTimeZone statsMaxDays uploadMaxBytes redeemMode }
    }
  }
`);

export function App() {
  const [token, setToken] = useState<string | null>(() => takeToken());
  const client = useMemo(() => (token ? makeClient(token, () => setToken(null)) : null), [token]);
  if (!token || !client) return <SignIn onToken={setToken} />;
  return (
    <Provider value={client}>
      <Signed token={token} onSignOut={() => { clearToken(); setToken(null); }} />
    </Provider>
  );
}

function Signed({ token, onSignOut }: { token: string; onSignOut: () => void }) {
  const [{ data, fetching, error }] = useQuery({ query: ViewerQuery });
  const [picked, setPicked] = useState('');
  if (fetching) return <Loader m="xl" aria-label="Loading" />;
  const v = data?.viewer;
  if (error || !v) {
    return <SignIn onToken={() => location.reload()} problem={errorMessage(error) ?? 'The token was not accepted: sign in again.'} />;
  }
  if (v.role !== 'MERCHANT' && v.role !== 'PLATFORM') {
    return (
      <SignIn onToken={() => location.reload()} problem={`A ${v.role} token cannot use the admin: sign in with a MERCHANT or PLATFORM token.`} />
    );
  }
  const session: Session = {
    token, role: v.role, userId: v.userId,
    shop: v.role === 'MERCHANT' ? v.shopNumber ?? null : picked.trim() || null,
    timeZone: v.settings.statsTimeZone, statsMaxDays: v.settings.statsMaxDays, uploadMaxBytes: v.settings.uploadMaxBytes,
  };
  return (
    <SessionContext.Provider value={session}>
      <Shell onSignOut={onSignOut} picked={picked} setPicked={setPicked} />
    </SessionContext.Provider>
  );
}

const nav = [
  { route: '/', label: 'Dashboard' },
  { route: '/templates', label: 'Templates' },
  { route: '/templates/new', label: 'New template' },
  { route: '/distribution', label: 'Distribute' },
  { route: '/tasks', label: 'Tasks' },
];

function Shell({ onSignOut, picked, setPicked }: { onSignOut: () => void; picked: string; setPicked: (s: string) => void }) {
  const route = useRoute();
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: 'xs' }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Title order={1} size="h4">coupond admin</Title>
          <HeaderRight onSignOut={onSignOut} picked={picked} setPicked={setPicked} />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Screens">
        {nav.map((n) => (
          <NavLink key={n.route} href={`/admin${n.route}`} label={n.label} active={route === n.route}
            onClick={(e) => { e.preventDefault(); navigate(n.route); }} />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Screen route={route} />
      </AppShell.Main>
    </AppShell>
  );
}

function HeaderRight({ onSignOut, picked, setPicked }: { onSignOut: () => void; picked: string; setPicked: (s: string) => void }) {
  return (
    <SessionContext.Consumer>
      {(s) => (
        <Group gap="sm">
          {s?.role === 'PLATFORM' ? (
            <TextInput size="xs" label="Shop" placeholder="shop number" value={picked}
              onChange={(e) => setPicked(e.currentTarget.value)} styles={{ root: { display: 'flex', gap: 6, alignItems: 'center' } }} />
          ) : (
            <Text size="sm">Shop {s?.shop}</Text>
          )}
          <Text size="sm">{s?.role}</Text>
          <Button size="xs" variant="default" onClick={onSignOut}>Sign out</Button>
        </Group>
      )}
    </SessionContext.Consumer>
  );
}

function Screen({ route }: { route: string }) {
  let m: RegExpExecArray | null;
  if (route === '/') return <Dashboard />;
  if (route === '/templates') return <Templates />;
  if (route === '/templates/new') return <CreateTemplate />;
  if ((m = /^\/templates\/(\d+)$/.exec(route))) return <TemplateDetail id={m[1]} />;
  if ((m = /^\/templates\/(\d+)\/reconciliation$/.exec(route))) return <Reconciliation id={m[1]} />;
  if (route === '/distribution') return <Distribution />;
  if ((m = /^\/tasks\/(\d+)$/.exec(route))) return <Distribution taskId={m[1]} />;
  if (route === '/tasks') return <Tasks />;
  return <Alert color="red" title="Not found">No screen at {route}.</Alert>;
}
