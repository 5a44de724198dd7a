// GraphQL codegen: the operations in src/ typed against the server's schema, so a renamed or removed
// field the app reads fails `npm run build` (codegen validates the documents, tsc the uses).
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: '../../schema.graphql',
  documents: ['src/**/*.{ts,tsx}', '!src/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        enumsAsTypes: true,
        useTypeImports: true,
        skipTypename: false,
        strictScalars: true,
        scalars: { ID: 'string', Time: 'string', Decimal: 'string', Upload: 'File' },
      },
    },
  },
};
export default config;
