package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hrefPieces are the pieces generated hrefs are made of, as HTML source
// text: what the browser's URL parser drops or reads another way (tab,
// newline and carriage return, literal or as character references; C0
// controls and spaces; a backslash), schemes, hosts, and the parts of the
// links the templates write.
var hrefPieces = []string{"/", "/", "\\", "&#9;", "\t", "&#10;", "\n", "&#13;", "&Tab;", "&NewLine;", " ", "&#1;", "&#x1f;",
	"&#0;", "&#127;", "\u00a0", "#", "?", ".", "..", "evil.example", "127.0.0.1", "localhost", "http:", "https:", "HTTP:",
	"file:", "javascript:alert(1)", "data:text/html,x", "//", "%2F", "%5C", "%09", "@", ":", "run/1", "case-1", "x", "mailto:a@b"}

// generatedHrefs is n hrefs nobody wrote, from a fixed seed, after the
// ones that bypassed the old filter and the links the templates write.
func generatedHrefs(n int) []string {
	out := []string{"/&#9;/evil.example/x", "/&#10;/evil.example/x", "/&#13;/evil.example/x", "/\t\\evil.example", "&#1;//evil.example",
		" //evil.example", "/\\evil.example", "\\\\evil.example", "#case-1", "/run/1", "/case?name=x", "javascript:alert(1)", "", "#", "?a"}
	r := rand.New(rand.NewPCG(39, 3))
	for len(out) < n {
		var b strings.Builder
		for range 1 + r.IntN(7) {
			b.WriteString(hrefPieces[r.IntN(len(hrefPieces))])
		}
		out = append(out, b.String())
	}
	return out
}

// linkVerdict is what Chromium made of one href: the attribute value it
// parsed, where an anchor with it goes, and what the viewer's import kept
// and where that goes.
type linkVerdict struct {
	Raw, Resolved, Origin, Kept, KeptURL, Here, HereOrigin string
	Parsed, HasKept                                        bool
}

// linkProbe is run in the page: for each href (HTML source of an
// attribute value) it resolves an anchor as Chromium does and imports the
// same link through the viewer's importHTML.
const linkProbe = `(function(list){return list.map(function(h){
var src='<a href="'+h+'">x</a>';
var a=new DOMParser().parseFromString('<!DOCTYPE html><body>'+src,'text/html').body.querySelector('a');
var raw=a?a.getAttribute('href'):null, probe=document.createElement('a');
if(raw!==null){probe.setAttribute('href',raw);}
var f=mcptestReport.importHTML(src), k=f.querySelector?f.querySelector('a'):null;
var kept=k?k.getAttribute('href'):null, ku='';
if(kept!==null){var q=document.createElement('a');q.setAttribute('href',kept);ku=q.href;}
return {Raw:raw||'',Parsed:raw!==null,Resolved:probe.href,Origin:probe.origin,Kept:kept||'',HasKept:kept!==null,KeptURL:ku,
Here:location.href,HereOrigin:location.origin};});})`

// checkLinks runs the probe over hrefs in the page b shows and holds each
// verdict to Chromium's own resolution: a link is kept exactly when the
// anchor Chromium resolves goes to this document or, on a page served over
// http, to this origin, and the kept link goes where the anchor went.
func checkLinks(t *testing.T, b *browser, hrefs []string) (kept int) {
	t.Helper()
	list, _ := json.Marshal(hrefs)
	var got []linkVerdict
	b.eval(linkProbe+"("+string(list)+")", &got)
	if len(got) != len(hrefs) {
		t.Fatalf("%d verdicts for %d hrefs", len(got), len(hrefs))
	}
	noFrag := func(s string) string { return strings.SplitN(s, "#", 2)[0] }
	for i, v := range got {
		if !v.Parsed {
			continue
		}
		sameDoc := noFrag(v.Resolved) == noFrag(v.Here)
		served := strings.HasPrefix(v.Here, "http://") || strings.HasPrefix(v.Here, "https://")
		want := sameDoc || served && v.Origin == v.HereOrigin
		if v.HasKept != want {
			t.Errorf("href %q (attribute %q): Chromium resolves it to %q from %q; the import kept it: %v (%q), want %v",
				hrefs[i], v.Raw, v.Resolved, v.Here, v.HasKept, v.Kept, want)
			continue
		}
		if !v.HasKept {
			continue
		}
		kept++
		if v.KeptURL != v.Resolved && !(v.Kept == "#" && noFrag(v.KeptURL) == noFrag(v.Resolved)) {
			t.Errorf("href %q: the kept link %q goes to %q, the anchor went to %q", hrefs[i], v.Kept, v.KeptURL, v.Resolved)
		}
	}
	return kept
}

// TestViewerLinksAsChromiumResolves is a differential test of the viewer's
// link filter against Chromium's own URL resolution, over generated hrefs,
// on the three pages that import HTML: the snapshot viewer the built
// binary writes (file://, so only links within the document are kept), the
// report `mcptest view` serves over http on loopback (links of its origin
// are kept too), and a forged snapshot address whose page carries every
// generated href as a link: once shown, no link of the page leaves it.
func TestViewerLinksAsChromiumResolves(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	hrefs := generatedHrefs(600)
	bin := mcptestBin(t)
	run := savedRun(t, "../../examples/quickstart/suite.yml")
	viewer := filepath.Join(t.TempDir(), "viewer.html")
	out, err := exec.Command(bin, "view", run, "--snapshot", viewer, "--no-serve").Output()
	addr, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "snapshot: ")
	if err != nil || !ok {
		t.Fatalf("mcptest view --snapshot: %v, stdout %q", err, out)
	}
	b := startBrowser(t, chromium)

	t.Run("snapshot", func(t *testing.T) {
		b.t = t
		b.open(addr, 1200, 800)
		waitSnapshot(t, b)
		if n := checkLinks(t, b, hrefs); n == 0 {
			t.Errorf("no generated href was kept on the snapshot page: the test kept nothing to compare")
		}
	})

	t.Run("served", func(t *testing.T) {
		b.t = t
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listen := l.Addr().String()
		l.Close()
		cmd := exec.Command(bin, "view", run, "--addr", listen)
		cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		base := "http://" + listen
		for i := 0; ; i++ {
			if resp, err := http.Get(base + "/"); err == nil {
				resp.Body.Close()
				break
			}
			if i == 200 {
				t.Fatalf("mcptest view did not serve %s: %s", base, cmd.Stderr)
			}
			time.Sleep(50 * time.Millisecond)
		}
		b.open(base+"/", 1200, 800)
		if n := checkLinks(t, b, hrefs); n == 0 {
			t.Errorf("no generated href was kept on the served page")
		}
	})

	t.Run("forged snapshot", func(t *testing.T) {
		b.t = t
		var links strings.Builder
		for i, h := range hrefs {
			fmt.Fprintf(&links, `<li class="case fail" id="case-%d" data-verdict="fail" data-search="x"><details><summary class="row"><a href="%s">case %d</a></summary></details></li>`, i+2, h, i)
		}
		var piece bytes.Buffer
		zw := gzip.NewWriter(&piece)
		json.NewEncoder(zw).Encode([]string{`<p>x</p>`})
		zw.Close()
		page := `<header id="summary"><div class="strip"></div></header><main><section id="cases"><ol class="case-list" id="case-list">` +
			`<li class="case fail" id="case-1" data-verdict="fail" data-search="x"><details><summary class="row">x</summary><div class="detail packed" data-pk="0.0"></div></details></li>` +
			links.String() + `</ol></section></main><template class="pk" id="pk-0">` + base64.URLEncoding.EncodeToString(piece.Bytes()) + `</template>`
		doc, _ := json.Marshal(map[string]string{"title": "forged", "verdict": "fail", "page": page})
		var z bytes.Buffer
		fw, _ := flate.NewWriter(&z, flate.BestCompression)
		fw.Write(doc)
		fw.Close()
		forged := "file://" + viewer + "#z=" + base64.RawURLEncoding.EncodeToString(z.Bytes())
		b.open(forged, 1200, 800)
		waitSnapshot(t, b)
		var st struct {
			Links int
			Off   []string
		}
		b.eval(`(function(){var here=location.href.split("#")[0],off=[];var ls=document.querySelectorAll("a[href]");
ls.forEach(function(a){if(a.href.split("#")[0]!==here){off.push(a.getAttribute("href")+" -> "+a.href);}});
return {Links:ls.length,Off:off};})()`, &st)
		if len(st.Off) > 0 {
			t.Errorf("%d links of the forged page lead off the snapshot, such as %q", len(st.Off), st.Off[0])
		}
		if st.Links == 0 {
			t.Errorf("the forged page shows no link at all")
		}
		if _, err := os.Stat(viewer); err != nil {
			t.Fatal(err)
		}
	})
}
