import { Alert, Modal, createTheme, type CSSVariablesResolver } from '@mantine/core';

// Shade 9 keeps coloured text (links, light and outline variants) and white on filled buttons above
// WCAG AA contrast; alert titles are in the text colour, as their tinted backgrounds would need more;
// dialogs' close buttons are named.
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: 9,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  components: {
    Alert: Alert.extend({ styles: { title: { color: 'var(--mantine-color-text)' } } }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});

/** Field errors in red 9 (red 6, Mantine's default, is below 4.5:1 on white). */
export const cssVariables: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-error': 'var(--mantine-color-red-9)' },
  dark: {},
});
