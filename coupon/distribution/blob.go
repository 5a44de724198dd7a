package distribution

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// (the default: one machine, or a shared volume)
	_ "gocloud.dev/blob/s3blob"   // s3:// (API and worker on different machines)
	"gocloud.dev/gcerrors"
)

// Files is where uploaded files live while their task needs them: a gocloud.dev bucket, so the
// API that stores a file and the worker that reads it may run on different machines
// (COUPON_BLOB_URL, e.g. file:///var/lib/coupond/uploads?create_dir=true).
type Files struct{ bucket *blob.Bucket }

// OpenFiles opens the bucket at url.
func OpenFiles(ctx context.Context, url string) (*Files, error) {
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("open blob bucket: %w", err)
	}
	return &Files{bucket: b}, nil
}

// Close closes the bucket.
func (f *Files) Close() error { return f.bucket.Close() }

// errFileGone is returned by Fetch for a key the bucket does not hold.
var errFileGone = errors.New("the uploaded file is gone")

// contentTypes are the stored files' media types, by kind.
var contentTypes = map[Kind]string{
	KindXLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	KindCSV:  "text/csv; charset=utf-8",
}

// Put stores the local file at path, of kind, under key.
func (f *Files) Put(ctx context.Context, key, path string, kind Kind) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := f.bucket.Upload(ctx, key, src, &blob.WriterOptions{ContentType: contentTypes[kind]}); err != nil {
		return fmt.Errorf("store upload %s: %w", key, err)
	}
	return nil
}

// Fetch copies the file stored under key into a local temporary file (excelize reads a zip by
// random access) and returns its path and a function removing it. A missing key is errFileGone.
func (f *Files) Fetch(ctx context.Context, key string) (string, func(), error) {
	r, err := f.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return "", nil, errFileGone
	}
	if err != nil {
		return "", nil, fmt.Errorf("read upload %s: %w", key, err)
	}
	defer r.Close()
	tmp, err := os.CreateTemp("", "coupond-task-*")
	if err != nil {
		return "", nil, err
	}
	remove := func() { os.Remove(tmp.Name()) }
	_, err = io.Copy(tmp, r)
	if err = errors.Join(err, tmp.Close()); err != nil {
		remove()
		return "", nil, fmt.Errorf("copy upload %s: %w", key, err)
	}
	return tmp.Name(), remove, nil
}

// Delete removes the file under key; a missing one is no error.
func (f *Files) Delete(ctx context.Context, key string) error {
	err := f.bucket.Delete(ctx, key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("delete upload %s: %w", key, err)
	}
	return nil
}
