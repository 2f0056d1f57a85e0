package dev.ductor.support;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A headless Chromium driven through Debian's chromium-driver (never a downloaded driver: Selenium Manager is not
 * used because the driver's path is given). Without Chromium the browser tests are skipped with a message saying how
 * to enable them, except under CI=true, where a missing browser fails them.
 */
public final class Browser implements AutoCloseable {

    public static final String CHROMIUM = System.getProperty("ductor.chromium", "/usr/bin/chromium");
    public static final String DRIVER = System.getProperty("ductor.chromedriver", "/usr/bin/chromedriver");
    private static final Duration WAIT = Duration.ofSeconds(20);

    public final WebDriver driver;
    private final String base;

    private Browser(WebDriver driver, String base) {
        this.driver = driver;
        this.base = base;
    }

    /** Skips (or under CI=true fails) when Chromium or its driver is missing. */
    public static void assumeAvailable() {
        boolean present = new File(CHROMIUM).canExecute() && new File(DRIVER).canExecute();
        if (!present && "true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail("CI=true but Chromium is missing (" + CHROMIUM + ", " + DRIVER + "): .ci/run installs it with"
                    + " apt-get install -y chromium chromium-driver");
        }
        Assumptions.assumeTrue(present, "Console browser tests SKIPPED: no Chromium at " + CHROMIUM + " and " + DRIVER
                + ". Enable them with `apt-get install -y chromium chromium-driver` (or -Dductor.chromium=... -Dductor.chromedriver=...);"
                + " under CI=true they fail instead of skipping.");
    }

    public static Browser open(String base) {
        assumeAvailable();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1440,1000", "--force-device-scale-factor=1", "--lang=en-US");
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL")); // read by close()
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(DRIVER)).build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().window().setSize(new Dimension(1440, 1000));
        return new Browser(driver, base);
    }

    public void go(String path) {
        driver.get(base + path);
    }

    public <T> T until(Function<WebDriver, T> condition, String what) {
        return new WebDriverWait(driver, WAIT).withMessage(what).pollingEvery(Duration.ofMillis(25))
                .ignoring(StaleElementReferenceException.class).until(condition);
    }

    public WebElement find(String css) {
        return until(d -> d.findElements(By.cssSelector(css)).stream().filter(WebElement::isDisplayed).findFirst().orElse(null),
                "no visible " + css + " on " + driver.getCurrentUrl());
    }

    public boolean has(String css) {
        return !driver.findElements(By.cssSelector(css)).isEmpty();
    }

    /** Signs in through the dev-role picker and waits for the shell. */
    public void signInAs(String role) {
        go("/console/signin");
        find("[data-dev-role='" + role + "']").click();
        find("[data-who] [data-role='" + role + "']");
    }

    public void screenshot(String name) {
        Path dir = Path.of(System.getProperty("console.screenshots.dir", "target/console-screenshots"));
        try {
            Files.createDirectories(dir);
            Files.write(dir.resolve(name + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Quits, failing if the page broke its Content-Security-Policy anywhere in the session (console/ConsoleRoutes): the
     * browser then refused a script or a style, and the console may look fine while part of it does not work.
     */
    @Override
    public void close() {
        try {
            List<String> refused = driver.manage().logs().get(LogType.BROWSER).getAll().stream().map(LogEntry::getMessage)
                    .filter(message -> message.contains("Content Security Policy")).toList();
            if (!refused.isEmpty()) {
                throw new AssertionError("the console broke its Content-Security-Policy:\n  " + String.join("\n  ", refused));
            }
        } finally {
            driver.quit();
        }
    }
}
