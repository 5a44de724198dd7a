// createCouponTask as a GraphQL multipart request (operations, map, then the file part), sent with
// XMLHttpRequest so the bytes sent can be shown; it carries Apollo-Require-Preflight, which the server
// requires of multipart requests against cross-site request forgery.
import { print } from 'graphql';
import type { DocumentNode } from 'graphql';
import { endpoint } from './client';

export type UploadResult<T> = { data?: T; errors?: { message: string; extensions?: { code?: string } }[] };

/** Sends the mutation with `file` at variables.input.file; onProgress gets the bytes sent so far. */
export function uploadMutation<T>(
  token: string,
  doc: DocumentNode,
  input: Record<string, unknown>,
  file: File,
  onProgress: (loaded: number, total: number) => void,
): Promise<UploadResult<T>> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: print(doc), variables: { input: { ...input, file: null } } }));
  form.append('map', JSON.stringify({ 0: ['variables.input.file'] }));
  form.append('0', file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', endpoint);
    xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.setRequestHeader('Apollo-Require-Preflight', 'true');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      try {
        resolve(JSON.parse(xhr.responseText) as UploadResult<T>);
      } catch {
        reject(new Error(`the server answered ${xhr.status}`));
      }
    };
    xhr.onerror = () => reject(new Error('the upload failed'));
    xhr.send(form);
  });
}
