import { createTheme } from '@mantine/core';

// Blue 8 keeps text on light backgrounds and white on filled buttons above WCAG AA contrast.
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: 8,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
});
