package main

import (
	"archive/tar"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"

	"github.com/berth-sched/berth/test/bins"
)

// The image built from bin/ is a valid OCI image layout, says it runs as a user that is not root
// and that /etc/passwd names, holds every binary, and each starts from the image's files alone:
// chrooted into the extracted root filesystem, as that user, `--version` and `--help` work.
func TestImage(t *testing.T) {
	binDir := bins.Dir(t, binaries...)
	out := filepath.Join(t.TempDir(), "layout")
	digest, err := build(options{binDir: binDir, out: out, ref: "berth-scheduler:test", version: "test", arch: "amd64"})
	if err != nil {
		t.Fatal(err)
	}

	index, err := layout.ImageIndexFromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(manifest.Manifests) != 1 || manifest.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "berth-scheduler:test" {
		t.Fatalf("index: %+v", manifest.Manifests)
	}
	if manifest.Manifests[0].Digest != digest {
		t.Errorf("index names %s, build returned %s", manifest.Manifests[0].Digest, digest)
	}
	img, err := index.Image(manifest.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	// Fast: the layer is not read twice; extracting it below reads every byte.
	if err := validate.Image(img, validate.Fast); err != nil {
		t.Fatalf("not a valid image: %v", err)
	}
	if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s", mt)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	uidStr, gidStr, _ := strings.Cut(cfg.Config.User, ":")
	uid, err1 := strconv.Atoi(uidStr)
	gid, err2 := strconv.Atoi(gidStr)
	if err1 != nil || err2 != nil || uid == 0 || gid == 0 {
		t.Fatalf("config user %q: want numeric uid:gid, not root (runAsNonRoot can only check a numeric user)", cfg.Config.User)
	}
	if cfg.OS != "linux" || len(cfg.Config.Entrypoint) != 1 || cfg.Config.Entrypoint[0] != "/berth-scheduler" {
		t.Errorf("config: os %q, entrypoint %v", cfg.OS, cfg.Config.Entrypoint)
	}

	// The one layer, read once: extracted, and its uncompressed bytes hashed, which must be the
	// DiffID the image's config names (build computes it from the tar it compressed; Fast above
	// does not read the layer).
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v; want one", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	hash := sha256.New()
	tee := io.TeeReader(rc, hash)
	root := t.TempDir()
	extract(t, io.NopCloser(tee), root)
	if _, err := io.Copy(io.Discard, tee); err != nil { // the tar's end-of-archive padding
		t.Fatal(err)
	}
	if got := "sha256:" + hex.EncodeToString(hash.Sum(nil)); len(cfg.RootFS.DiffIDs) != 1 || cfg.RootFS.DiffIDs[0].String() != got {
		t.Errorf("the layer's uncompressed bytes are %s, the config's diff_ids %v", got, cfg.RootFS.DiffIDs)
	}
	if name := passwdName(t, filepath.Join(root, "etc", "passwd"), uid); name == "" {
		t.Errorf("/etc/passwd names no user %d", uid)
	}
	for _, bin := range binaries {
		info, err := os.Stat(filepath.Join(root, bin))
		if err != nil {
			t.Fatalf("the image has no /%s: %v", bin, err)
		}
		if info.Mode().Perm()&0o022 != 0 {
			t.Errorf("/%s is writable by others than root: %v", bin, info.Mode())
		}
		for _, arg := range []string{"--version", "--help"} {
			cmd := exec.Command("/"+bin, arg)
			if os.Geteuid() == 0 {
				// Nothing from this machine: only the image's files, and its user.
				cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
				cmd.Dir = "/"
			} else {
				// Without root there is no chroot; the extracted binary itself still runs, and
				// build refuses any binary that would need a loader from outside the image.
				t.Logf("not root: running %s from the extracted files without chroot", bin)
				cmd.Path = filepath.Join(root, bin)
			}
			cmd.Env = []string{}
			outb, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s %s from the image: %v\n%s", bin, arg, err, outb)
				continue
			}
			want := map[string]string{"--version": "v1.37", "--help": "Usage:"}[arg]
			if !strings.Contains(string(outb), want) {
				t.Errorf("%s %s printed no %q:\n%.500s", bin, arg, want, outb)
			}
		}
	}
}

// A binary that needs a dynamic loader is refused with a message that says how to build it.
func TestImageRefusesDynamicBinaries(t *testing.T) {
	dir := t.TempDir()
	// /bin/true is dynamically linked on every distribution the tests run on.
	data, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Skip("no /bin/true")
	}
	for _, bin := range binaries {
		if err := os.WriteFile(filepath.Join(dir, bin), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err = build(options{binDir: dir, out: filepath.Join(dir, "out"), ref: "x:y", arch: "amd64"})
	if err == nil || !strings.Contains(err.Error(), "is dynamically linked") || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("build with dynamic binaries: %v", err)
	}
}

func extract(t *testing.T, rc io.ReadCloser, root string) {
	t.Helper()
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			mode := os.FileMode(h.Mode) & os.ModePerm
			if h.Mode&0o1000 != 0 {
				mode |= os.ModeSticky
			}
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&os.ModePerm)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			f.Close()
		default:
			t.Fatalf("unexpected entry %s of type %c", h.Name, h.Typeflag)
		}
		if os.Geteuid() == 0 {
			_ = os.Lchown(path, h.Uid, h.Gid)
		}
	}
}

func passwdName(t *testing.T, path string, uid int) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Split(s.Text(), ":")
		if len(fields) >= 3 && fields[2] == strconv.Itoa(uid) {
			return fields[0]
		}
	}
	return ""
}
