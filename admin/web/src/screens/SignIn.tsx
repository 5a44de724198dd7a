import { useState } from 'react';
import { Alert, Button, Container, Stack, Text, Textarea, Title } from '@mantine/core';
import { saveToken } from '../lib/auth';

/** The paste box: a MERCHANT or PLATFORM JWT (or open /admin/#token=<jwt>). */
export function SignIn({ onToken, problem }: { onToken: (t: string) => void; problem?: string }) {
  const [value, setValue] = useState('');
  return (
    <Container size="sm" py="xl" component="main">
      <Stack>
        <Title order={1}>Sign in to coupond admin</Title>
        {problem && <Alert color="red" title="Not signed in" role="alert">{problem}</Alert>}
        <Text>Paste a MERCHANT or PLATFORM token, or open the link <code>/admin/#token=…</code> that <code>scripts/run.sh</code> prints.</Text>
        <form onSubmit={(e) => { e.preventDefault(); if (value.trim()) { saveToken(value); onToken(value.trim()); } }}>
          <Stack>
            <Textarea label="Token (JWT)" autosize minRows={3} value={value} onChange={(e) => setValue(e.currentTarget.value)} />
            <Button type="submit" disabled={!value.trim()}>Sign in</Button>
          </Stack>
        </form>
      </Stack>
    </Container>
  );
}
