import { Alert } from '@mantine/core';
import type { CombinedError } from '@urql/core';
import { errorMessage } from '../lib/errors';

/** A failed request as one alert (nothing when there is no error). */
export function Problem({ error }: { error?: CombinedError }) {
  const msg = errorMessage(error);
  return msg ? <Alert color="red" role="alert" title="Request failed">{msg}</Alert> : null;
}
