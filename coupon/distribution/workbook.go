package distribution

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"path"
	"strings"
)

// workbook is what an .xlsx's package says of its sheets: their names in the workbook's order,
// each one's part, and the shared-strings part.
type workbook struct {
	sheets []workbookSheet
	sst    *zip.File // nil: none
}

type workbookSheet struct {
	name string
	part *zip.File // nil: not a worksheet (a chart sheet), or its part is missing
}

// relationships is a package's relationships part (_rels/….rels).
type relationships struct {
	Rel []struct {
		ID     string `xml:"Id,attr"`
		Type   string `xml:"Type,attr"`
		Target string `xml:"Target,attr"`
	} `xml:"Relationship"`
}

// workbookPart is the workbook part's list of sheets (r:id names the relationship to each part).
type workbookPart struct {
	Sheets []struct {
		Name string `xml:"name,attr"`
		RID  string `xml:"id,attr"`
	} `xml:"sheets>sheet"`
}

// readWorkbook follows the package's relationships from its root to the workbook part and from
// there to the sheets' and shared strings' parts (part names compared as OPC does, ignoring case;
// relationship types by their last segment, so strict OOXML's namespaces read too).
func readWorkbook(z *zip.ReadCloser) (*workbook, error) {
	parts := make(map[string]*zip.File, len(z.File))
	for _, f := range z.File {
		parts[partKey(f.Name)] = f
	}
	var root relationships
	if err := readXMLPart(parts, "_rels/.rels", &root); err != nil {
		return nil, err
	}
	main := ""
	for _, r := range root.Rel {
		if strings.HasSuffix(r.Type, "/officeDocument") {
			main = resolvePart("", r.Target)
		}
	}
	var wb workbookPart
	if err := readXMLPart(parts, main, &wb); err != nil {
		return nil, err
	}
	var rels relationships
	if err := readXMLPart(parts, path.Join(path.Dir(main), "_rels", path.Base(main)+".rels"), &rels); err != nil {
		return nil, err
	}
	w := &workbook{}
	worksheets := map[string]*zip.File{}
	for _, r := range rels.Rel {
		switch {
		case strings.HasSuffix(r.Type, "/sharedStrings"):
			w.sst = parts[partKey(resolvePart(main, r.Target))]
		case strings.HasSuffix(r.Type, "/worksheet"):
			worksheets[r.ID] = parts[partKey(resolvePart(main, r.Target))]
		}
	}
	for _, s := range wb.Sheets {
		w.sheets = append(w.sheets, workbookSheet{name: s.Name, part: worksheets[s.RID]})
	}
	return w, nil
}

// open starts reading the sheet named name (the first when ""; names compared ignoring case, as
// Excel does), whose part may unpack to sheetLimit bytes.
func (w *workbook) open(z *zip.ReadCloser, name string, sheetLimit int64) (*xlsxSource, error) {
	if len(w.sheets) == 0 {
		return nil, fileInvalid("the workbook has no worksheet")
	}
	var s *workbookSheet
	names := make([]string, len(w.sheets))
	for i := range w.sheets {
		names[i] = w.sheets[i].name
		if s == nil && (name == "" || strings.EqualFold(w.sheets[i].name, name)) {
			s = &w.sheets[i]
		}
	}
	switch {
	case s == nil:
		return nil, fileInvalid("the workbook has no worksheet named %q (it has %s)", name, strings.Join(names, ", "))
	case s.part == nil:
		return nil, fileInvalid("the sheet %q is not a worksheet (a chart sheet?) or is missing from the file", s.name)
	case s.part.UncompressedSize64 > uint64(sheetLimit):
		return nil, fileInvalid("the workbook's sheets unpack to more than %d MiB: it is not a list of user ids", sheetLimit>>20)
	case w.sst != nil && w.sst.UncompressedSize64 > sharedStringsLimit:
		return nil, fileInvalid("the workbook's shared strings unpack to more than %d MiB: it is not a list of user ids", sharedStringsLimit>>20)
	}
	x := &xlsxSource{z: z, part: s.part, sst: w.sst}
	if err := x.start(); err != nil {
		if x.rc != nil {
			x.rc.Close()
		}
		return nil, err
	}
	return x, nil
}

// readXMLPart decodes the part named name into v; a missing, oversized or malformed part is not
// a workbook.
func readXMLPart(parts map[string]*zip.File, name string, v any) error {
	f := parts[partKey(name)]
	if f == nil || f.UncompressedSize64 > packagePartLimit {
		return notAWorkbook()
	}
	rc, err := f.Open()
	if err != nil {
		return notAWorkbook()
	}
	defer rc.Close()
	if err := xml.NewDecoder(io.LimitReader(rc, packagePartLimit)).Decode(v); err != nil {
		return notAWorkbook()
	}
	return nil
}

// resolvePart is the part a relationship of source targets: absolute from the package root when
// it starts with "/", else relative to source's folder.
func resolvePart(source, target string) string {
	if strings.HasPrefix(target, "/") {
		return target[1:]
	}
	return path.Join(path.Dir(source), target)
}

// partKey is a zip entry's name as part names compare: forward slashes, case ignored.
func partKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, `\`, "/"))
}
