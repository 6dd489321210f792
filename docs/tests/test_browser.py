"""A headless browser (Chromium through selenium) opens the built site's index, the API page of
``CompiledModel.simulate`` and a gallery page, and finds their content: what a reader sees, after
the theme's JavaScript has run. Skipped, saying why, only where no browser or driver is installed
(Debian: apt-get install chromium chromium-driver; pip install selenium)."""
import shutil

import pytest

from conftest import HTML

pytestmark = pytest.mark.skipif(not (HTML / "index.html").exists(),
                                reason="build the docs first: python3 -m sphinx -W --keep-going -b html docs docs/_build/html")


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    binary = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.skip("no Chromium and chromedriver on the PATH (Debian: apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--allow-file-access-from-files"):
        options.add_argument(argument)
    from selenium.webdriver.chrome.service import Service
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def open_page(browser, relative: str):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get((HTML / relative).as_uri())
    WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.TAG_NAME, "article")))
    return By


def test_index_shows_the_guide_and_links_to_its_parts(browser):
    By = open_page(browser, "index.html")
    assert "physlib" in browser.title
    text = browser.find_element(By.TAG_NAME, "article").text
    assert "Acausal physical-component modeling" in text
    links = {a.text.strip() for a in browser.find_elements(By.CSS_SELECTOR, "article a")}
    assert {"User guide", "API reference", "Gallery", "Catalog"} <= links


def test_api_page_documents_compiled_model_simulate(browser):
    By = open_page(browser, "api/generated/physlib.CompiledModel.html")
    entry = browser.find_element(By.ID, "physlib.CompiledModel.simulate")
    assert entry.is_displayed() and "simulate(" in entry.text
    body = entry.find_element(By.XPATH, "following-sibling::dd").text
    assert "t_end" in body and len(body) > 200        # the docstring itself, not an empty entry


def test_gallery_page_shows_the_output_and_the_figure(browser):
    By = open_page(browser, "gallery/rc_circuit.html")
    article = browser.find_element(By.TAG_NAME, "article")
    assert "RC circuit charged by a 1 V step" in article.text
    assert "C1.v at 5 ms" in article.text                 # the script's printed output
    images = [img for img in article.find_elements(By.TAG_NAME, "img") if "sphx_glr_rc_circuit" in img.get_attribute("src")]
    assert images and browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", images[0]) > 100
