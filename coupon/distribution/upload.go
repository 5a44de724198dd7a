package distribution

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"coupond/coupon"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/coupontemplate"
	"coupond/idgen"
	"coupond/store"
)

// CreateInput is a new distribution task.
type CreateInput struct {
	TemplateID int64
	Name       string
	SendType   coupontask.SendType
	SendTime   *time.Time // SCHEDULED only: when to start
	Sheet      *string    // the worksheet to read; nil: the first
	FileName   string     // the uploader's name of the file, for display only (never a path we open)
	File       io.Reader  // the upload's content
}

// Create checks the input and the uploaded file (kind by content, a readable sheet with a user-id
// column and at least one data row; a CSV at most MaxRows data rows), stores the file in the blob store under a name of ours, and
// creates the task PENDING. After the commit (so a job always finds the row) it queues the run
// (enqueueNew). Anything refused leaves no task row and no stored file.
func (s *Service) Create(ctx context.Context, actor coupon.Actor, in CreateInput) (*Task, error) {
	if actor.Role != coupon.RoleMerchant {
		return nil, coupon.Errorf(coupon.CodeNotOwner, "only a shop's merchant creates distribution tasks")
	}
	tpl, err := s.db.CouponTemplate.Query().
		Where(coupontemplate.ID(in.TemplateID), coupontemplate.ShopNumber(actor.Shop)).Only(ctx)
	if ent.IsNotFound(err) || (err == nil && !actor.ManagesTemplate(tpl.Source, tpl.ShopNumber)) {
		return nil, coupon.NotFoundAt("templateId")
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	if err := s.checkInput(in, tpl, now); err != nil {
		return nil, err
	}
	path, kind, err := s.receive(in.File)
	if path != "" {
		defer os.Remove(path)
	}
	if err != nil {
		return nil, err
	}
	sheet := ""
	if in.Sheet != nil {
		sheet = *in.Sheet
	}
	rows, err := s.checkFile(path, kind, sheet)
	if err != nil {
		return nil, withField(err, "file")
	}

	id := idgen.Next()
	key := "tasks/" + strconv.FormatInt(id, 10) + "." + string(kind)
	if err := s.files.Put(ctx, key, path, kind); err != nil {
		return nil, err
	}
	var row *ent.CouponTask
	err = store.WithTx(ctx, s.db, func(tx *ent.Tx) error {
		row, err = tx.CouponTask.Create().SetID(id).SetShopNumber(actor.Shop).SetTemplateID(tpl.ID).
			SetName(strings.TrimSpace(in.Name)).SetFilePath(key).SetFileName(displayName(in.FileName)).
			SetSendType(in.SendType).SetNillableSendTime(in.SendTime).SetNillableSheetName(in.Sheet).SetNillableSendNum(rows).
			SetOperatorID(actor.UserID).Save(ctx)
		if err != nil {
			return err
		}
		return auditTask(ctx, tx, actor, row, template.ActionTaskCreate)
	}, nil)
	if err != nil {
		s.deleteFile(ctx, key)
		return nil, fmt.Errorf("create task: %w", err)
	}
	s.enqueueNew(ctx, row)
	return &Task{row}, nil
}

// checkFile opens the received file once: a readable sheet with a user-id column and a data row.
// A CSV is counted here (cheap: a million rows in a fraction of a second), so one over MaxRows is
// refused at upload and its task starts with send_num; an .xlsx is counted by its run, the one
// pass over its rows (send_num set when the run has read them all).
func (s *Service) checkFile(path string, kind Kind, sheet string) (*int, error) {
	sh, err := OpenSheet(path, kind, sheet, s.cfg.MaxUploadBytes)
	if err != nil {
		return nil, err
	}
	defer sh.Close()
	if kind != KindCSV {
		return nil, nil
	}
	n, err := sh.CountRows(s.cfg.MaxRows)
	if err != nil {
		return nil, err
	}
	if n > s.cfg.MaxRows {
		return nil, fileInvalid("%s", tooManyRows(s.cfg.MaxRows))
	}
	return &n, nil
}

// checkInput checks name, send type and time against the template.
func (s *Service) checkInput(in CreateInput, tpl *ent.CouponTemplate, now time.Time) error {
	var v coupon.ValidationError
	if n := utf8.RuneCountInString(strings.TrimSpace(in.Name)); n == 0 || n > 128 {
		v = append(v, coupon.FieldError("name", "give the task a name of 1 to 128 characters"))
	}
	switch {
	case in.SendType == coupontask.SendTypeSCHEDULED && in.SendTime == nil:
		v = append(v, coupon.FieldError("sendTime", "a SCHEDULED task needs a sendTime"))
	case in.SendType == coupontask.SendTypeSCHEDULED && !in.SendTime.After(now):
		v = append(v, coupon.FieldError("sendTime", "sendTime must be in the future"))
	case in.SendType == coupontask.SendTypeSCHEDULED && !in.SendTime.Before(tpl.ValidEndTime):
		v = append(v, coupon.FieldError("sendTime", "sendTime must be before the template ends"))
	case in.SendType == coupontask.SendTypeIMMEDIATE && in.SendTime != nil:
		v = append(v, coupon.FieldError("sendTime", "an IMMEDIATE task starts at once: leave sendTime out"))
	}
	if in.Sheet != nil && (*in.Sheet == "" || utf8.RuneCountInString(*in.Sheet) > 31) {
		v = append(v, coupon.FieldError("sheet", "a worksheet name has 1 to 31 characters"))
	}
	if len(v) > 0 {
		return v
	}
	if tpl.Status == coupontemplate.StatusENDED || !now.Before(tpl.ValidEndTime) {
		return &coupon.Error{Code: coupon.CodeEnded, Field: []string{"templateId"}, Message: "the template has ended: its coupons can no longer be handed out"}
	}
	return nil
}

// receive copies the upload to a local temporary file, refusing it once it passes the size cap
// (while copying: never more than the cap plus one byte is read), and sniffs its kind.
func (s *Service) receive(file io.Reader) (string, Kind, error) {
	tmp, err := os.CreateTemp("", "coupond-upload-*")
	if err != nil {
		return "", "", err
	}
	n, err := io.Copy(tmp, io.LimitReader(file, s.cfg.MaxUploadBytes+1))
	if err != nil {
		tmp.Close()
		return tmp.Name(), "", fmt.Errorf("receive upload: %w", err)
	}
	if n > s.cfg.MaxUploadBytes {
		tmp.Close()
		return tmp.Name(), "", withField(fileInvalid("the file is larger than %d MiB", s.cfg.MaxUploadBytes>>20), "file")
	}
	kind, err := sniff(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return tmp.Name(), kind, withField(err, "file")
}

// withField puts field on a typed error without one.
func withField(err error, field string) error {
	var e *coupon.Error
	if errors.As(err, &e) && len(e.Field) == 0 {
		c := *e
		c.Field = []string{field}
		return &c
	}
	return err
}

// displayName keeps the base name of the uploader's file name, for display.
func displayName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToValidUTF8(name, "")
	if utf8.RuneCountInString(name) > 255 {
		name = string([]rune(name)[:255])
	}
	if name == "" {
		name = "upload"
	}
	return name
}

// enqueueNew queues a new task's run (at once, or at sendTime). A failed enqueue is logged, not
// returned: the task row is committed and the reaper queues its run anyway.
func (s *Service) enqueueNew(ctx context.Context, t *ent.CouponTask) {
	ctx = context.WithoutCancel(ctx)
	at := s.now()
	if t.SendTime != nil {
		at = *t.SendTime
	}
	if err := s.sched.RunDistribution(ctx, t.ID, at, true); err != nil {
		slog.WarnContext(ctx, "distribution task queued late (the reaper will)", "task", t.ID, "err", err)
	}
}

// deleteFile removes a stored upload, logging a failure (the retention job removes it later).
func (s *Service) deleteFile(ctx context.Context, key string) {
	if err := s.files.Delete(context.WithoutCancel(ctx), key); err != nil {
		slog.WarnContext(ctx, "stored upload not deleted", "key", key, "err", err)
	}
}
