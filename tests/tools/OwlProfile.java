// Checks ontology files against the OWL 2 DL profile with the OWL API (the
// jar owlready2 bundles): prints each file's violations and a line saying how
// it went; exits 1 if any file has a violation, 2 if one cannot be read. It
// never touches the network: an owl:imports is not fetched but reported, as
// a violation.
//
//   java -cp .../owlready2/pellet/owlapi-distribution-3.4.3-bin.jar tests/tools/OwlProfile.java ontology/kg.ttl

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.semanticweb.owlapi.apibinding.OWLManager;
import org.semanticweb.owlapi.io.FileDocumentSource;
import org.semanticweb.owlapi.model.IRI;
import org.semanticweb.owlapi.model.MissingImportHandlingStrategy;
import org.semanticweb.owlapi.model.OWLOntology;
import org.semanticweb.owlapi.model.OWLOntologyCreationException;
import org.semanticweb.owlapi.model.OWLOntologyLoaderConfiguration;
import org.semanticweb.owlapi.model.OWLOntologyManager;
import org.semanticweb.owlapi.profiles.OWL2DLProfile;
import org.semanticweb.owlapi.profiles.OWLProfileViolation;

public class OwlProfile {
    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: java -cp OWLAPI_JAR OwlProfile.java ONTOLOGY_FILE...");
            System.exit(2);
        }
        int status = 0;
        for (String name : args) {
            status = Math.max(status, check(name));
        }
        System.exit(status);
    }

    /** 0: in the profile, 1: violations, 2: unreadable. */
    static int check(String name) {
        File file = new File(name);
        if (!file.isFile()) {
            System.out.println(name + ": no such file");
            return 2;
        }
        OWLOntologyManager manager = OWLManager.createOWLOntologyManager();
        // Every import resolves to a file that cannot exist, so none is fetched: each is reported instead.
        manager.addIRIMapper(iri -> IRI.create(new File("/nonexistent/owl-import-not-fetched")));
        List<IRI> imports = new ArrayList<>();
        manager.addMissingImportListener(event -> imports.add(event.getImportedOntologyURI()));
        OWLOntologyLoaderConfiguration config =
                new OWLOntologyLoaderConfiguration().setMissingImportHandlingStrategy(MissingImportHandlingStrategy.SILENT);
        OWLOntology ontology;
        try {
            ontology = manager.loadOntologyFromOntologyDocument(new FileDocumentSource(file), config);
        } catch (OWLOntologyCreationException e) {
            System.out.println(name + ": cannot load the ontology: " + e.getMessage().lines().findFirst().orElse(""));
            return 2;
        }
        List<String> problems = new ArrayList<>();
        for (IRI iri : imports) {
            problems.add("owl:imports <" + iri + ">, which this offline check does not fetch");
        }
        for (OWLProfileViolation violation : new OWL2DLProfile().checkOntology(ontology).getViolations()) {
            problems.add(violation.toString().strip());
        }
        Collections.sort(problems); // the report's order is a hash set's
        problems.forEach(problem -> System.out.println(name + ": " + problem));
        String verdict = problems.isEmpty() ? "in the OWL 2 DL profile" : problems.size() + " OWL 2 DL violation(s)";
        System.out.println(name + ": " + ontology.getAxiomCount() + " axioms, " + verdict);
        return problems.isEmpty() ? 0 : 1;
    }
}
