package distribution

import (
	"sync"

	"coupond/lua"
)

// rowReader turns a task's sheet into batches, in file order: it remembers the valid ids read so
// far (a repeat fails DUPLICATE_IN_FILE) and holds the row cap, counting the data rows read.
type rowReader struct {
	sh        *Sheet
	batchSize int
	maxRows   int
	seen      idSet // the valid ids read so far
	rows      int   // data rows read so far
}

func (s *Service) newRowReader(sh *Sheet) *rowReader {
	return &rowReader{sh: sh, batchSize: s.cfg.BatchSize, maxRows: s.cfg.MaxRows}
}

// skipTo reads the rows up to and including row resume (committed already), remembering their
// valid ids so a later repeat is still told apart as DUPLICATE_IN_FILE.
func (rr *rowReader) skipTo(resume int) error {
	if resume == 0 {
		return nil
	}
	for {
		r, ok := rr.sh.Next()
		if !ok {
			return rr.sh.Err()
		}
		rr.rows++
		if r.Code == "" {
			rr.seen.add(r.UserID)
		}
		if r.Num >= resume {
			return nil
		}
	}
}

// nextBatch reads the batch following row start, marking repeats of earlier ids
// DUPLICATE_IN_FILE. It is the last (fail set) when the sheet cannot be read further, or when a
// data row follows the cap's last (a file with no trustworthy declared range, checkRows): the
// rows up to the cap are distributed, the task then ends FAILED with the reason.
func (rr *rowReader) nextBatch(start int) batch {
	b := batch{start: start, rows: make([]Row, 0, rr.batchSize), candidates: make([]lua.DistributeRow, 0, rr.batchSize)}
	for len(b.rows) < rr.batchSize {
		r, ok := rr.sh.Next()
		if !ok {
			if err := rr.sh.Err(); err != nil {
				b.fail = "the file cannot be read any more: " + err.Error()
			}
			break
		}
		if rr.rows == rr.maxRows {
			b.fail = tooManyRows(rr.maxRows)
			break
		}
		rr.rows++
		if r.Code == "" {
			if rr.seen.add(r.UserID) {
				b.candidates = append(b.candidates, lua.DistributeRow{Row: r.Num, UserID: r.UserID})
			} else {
				r.Code, r.Reason = CodeDuplicateInFile, "the user id appears earlier in the file: one coupon per listed user"
			}
		}
		b.rows = append(b.rows, r)
		b.end = r.Num
	}
	return b
}

// readAhead reads the batches following row start in a goroutine while the caller reserves and
// writes the ones before: one batch waits in the channel, the next is being read, so at most two
// batches are held beyond the caller's two in flight and memory stays bounded whatever the file's size. The
// last batch sent has no rows (the end of the file) or a fail reason. stop ends the reading and
// waits for the goroutine. The reader owns rr (and the sheet) until stop returns.
func (rr *rowReader) readAhead(start int) (<-chan batch, func()) {
	out := make(chan batch, 1)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			b := rr.nextBatch(start)
			select {
			case out <- b:
			case <-quit:
				return
			}
			if len(b.rows) == 0 || b.fail != "" {
				return
			}
			start = b.end
		}
	}()
	return out, func() { close(quit); wg.Wait() }
}
