"""The page of serve.py in a real browser (headless Debian chromium through selenium): the token typed once,
text pasted and restored as the API restores it, words typed live and shown final as the stream sends
them. SCREENSHOT_TO=docs/images/service.png saves the page's screenshot there as well (for the docs)."""
import json
import os
import shutil

import httpx
import pytest
from websockets.sync.client import connect

from serving import Server

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

TOKEN = "page-token"
PASTED = "so i went to new york last tuesday did you go there too\nyes it was great we ate pizza in brooklyn"
TYPED = "i think we should meet on monday what do you think"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("page") / "log", "--token", TOKEN)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,820"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def test_page_restores_pasted_text_and_streams_typed_words(server, browser, tmp_path):
    wait = WebDriverWait(browser, 60)
    browser.get(server.url + "/")
    wait.until(lambda b: b.find_element(By.ID, "model").text == "default_en")
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    browser.find_element(By.ID, "input").send_keys(PASTED)
    browser.find_element(By.ID, "restore").click()
    wait.until(lambda b: b.find_element(By.ID, "output").text)
    expected = httpx.post(server.url + "/v1/restore", json={"lines": PASTED.split("\n")},
                          headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60).json()["lines"]
    assert browser.find_element(By.ID, "output").text.split("\n") == expected
    scored = httpx.post(server.url + "/v1/restore", json={"lines": PASTED.split("\n"), "words": True},
                        headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60).json()["lines"]
    to_review = [word["text"] for line in scored for word in line["words"] if word["review"]]
    assert to_review  # the page marks the words the API flags, and no others
    assert [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#output .review")] == to_review

    browser.find_element(By.ID, "start").click()
    wait.until(lambda b: b.find_element(By.ID, "state").text == "open")
    browser.find_element(By.ID, "live").send_keys(TYPED + " ")  # typed key by key: each word sent after its space
    wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#captions div").text)  # final words before the end
    browser.find_element(By.ID, "live").send_keys(Keys.ENTER)
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#captions div[data-end]"))
    shown = browser.find_element(By.CSS_SELECTOR, "#captions div[data-end]").text
    assert shown == streamed(server, TYPED.split())
    assert not browser.find_element(By.ID, "error").text
    marked = browser.find_elements(By.CSS_SELECTOR, "#captions div[data-end] span")  # every word, with its confidence
    assert " ".join(e.text for e in marked) == shown and all(e.get_attribute("title").startswith("confidence ")
                                                              for e in marked)

    browser.save_screenshot(str(tmp_path / "service.png"))
    if os.environ.get("SCREENSHOT_TO"):
        shutil.copyfile(tmp_path / "service.png", os.environ["SCREENSHOT_TO"])


def streamed(server, words: list[str]) -> str:
    """The utterance the stream API gives for ``words`` sent one at a time, as the page sends typed words."""
    text = ""
    with connect(server.ws_url + "/v1/stream?lookahead=8", additional_headers={"Authorization": f"Bearer {TOKEN}"}) as ws:
        for word in words:
            ws.send(json.dumps({"words": word}))
        ws.send(json.dumps({"end": True}))
        while True:
            message = json.loads(ws.recv(timeout=60))
            text += message["final"]
            if message.get("end"):
                return text


def test_a_refused_token_is_said_beside_the_button_in_the_pages_words(server, browser):
    """The 401 was shown far below the Restore button and spoke of an ``Authorization`` header."""
    wait = WebDriverWait(browser, 60)
    browser.get(server.url + "/")
    browser.find_element(By.ID, "input").send_keys(PASTED)
    browser.find_element(By.ID, "restore").click()
    wait.until(lambda b: b.find_element(By.ID, "restore-error").text)
    assert browser.find_element(By.ID, "restore-error").text == \
        "This server needs a token: type it in the Token field at the top of the page."
    assert browser.switch_to.active_element.get_attribute("id") == "token"
    browser.find_element(By.ID, "token").send_keys("not-the-token")
    browser.find_element(By.ID, "restore").click()
    wait.until(lambda b: "refused" in b.find_element(By.ID, "restore-error").text)
    assert not browser.find_element(By.ID, "error").text and not browser.find_element(By.ID, "output").text
