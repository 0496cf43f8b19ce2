"""WebVTT as a browser reads it (issue 68): a file written by the real writer (``formats.WebVTT``), its text with
``&``, ``<``, ``>`` and a ``-->`` inside a word, and a dialogue cue of two voices, loaded as the default track of
a ``<video>`` in headless chromium (served from 127.0.0.1: a file:// track may be refused), read back through
the TextTrack API: every cue, its text as written, its times the milliseconds written, what it shows (its
HTML) the words, and each voice a span of its own."""
import functools
import http.server
import shutil
import threading

import pytest

from gector_punct.transcripts.cues import Cue
from gector_punct.transcripts.formats import FORMATS

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CUES = [Cue(0.5, 2.25, ("AT&T said x<y,", "and x>y.")), Cue(2.334, 4.0, ("The arrow a-->b",), ("SPEAKER_00",)),
        Cue(4.084, 6.5, ("-Hi, Tom & Ann.", "-Hello <there>."), ("SPEAKER_00", "SPEAKER_01")),
        Cue(3725.125, 3727.0, ("One more,", "an hour on."), ("SPEAKER_01", "SPEAKER_01"))]
NAMES = {"SPEAKER_00": "Karen", "SPEAKER_01": "Tom"}
PAGE = '<!doctype html><video id="video" muted><track id="track" default kind="subtitles" src="cues.vtt"></video>'
READ_CUES = """
const track = document.getElementById('track').track;
track.mode = 'hidden';
const element = document.getElementById('track');
if (element.readyState !== 2) return null;
return Array.from(track.cues).map(cue => {
  const html = cue.getCueAsHTML();
  return {text: cue.text, start: cue.startTime, end: cue.endTime, shown: html.textContent,
          voices: Array.from(html.childNodes).filter(n => n.nodeType === 1).map(n => [n.title, n.textContent])};
});
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def served(tmp_path):
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    vtt = FORMATS["vtt"]
    (tmp_path / "cues.vtt").write_text(vtt.header + "".join(vtt.cue(n, cue, NAMES) for n, cue in enumerate(CUES, 1)),
                                       encoding="utf-8")
    handler = functools.partial(QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", (tmp_path / "cues.vtt").read_text(encoding="utf-8")
    server.shutdown()
    server.server_close()


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def test_a_written_vtt_reads_back_in_a_browser_as_written(served, browser):
    url, written = served
    browser.get(url + "/page.html")
    cues = WebDriverWait(browser, 30).until(lambda b: b.execute_script(READ_CUES))
    blocks = written.split("\n\n")[1:-1]  # after the header: each cue's timing line and text
    assert len(cues) == len(blocks) == len(CUES)
    for cue, block, built in zip(cues, blocks, CUES):
        assert cue["text"] == block.split("\n", 1)[1]  # the text as written, escapes and voices included
        assert (round(cue["start"] * 1000), round(cue["end"] * 1000)) == (round(built.start * 1000),
                                                                          round(built.end * 1000))
        assert cue["shown"].split() == " ".join(built.lines).split()  # what shows: the words themselves
    assert cues[2]["voices"] == [["Karen", "-Hi, Tom & Ann."], ["Tom", "-Hello <there>."]]  # a span each
    assert [title for title, _ in cues[1]["voices"]] == ["Karen"] and cues[0]["voices"] == []
    assert cues[3]["voices"] == [["Tom", "One more,\nan hour on."]]
